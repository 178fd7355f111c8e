"""The paper book's CLI."""
