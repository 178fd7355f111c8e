"""The paper book's models and ports."""
