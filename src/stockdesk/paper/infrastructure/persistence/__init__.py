"""The paper book's tables and store."""
