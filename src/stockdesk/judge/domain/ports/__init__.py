"""Judge: debate outcome -> one structured verdict."""
