"""The ledger's entry type and its chain rule (pure: no I/O)."""
