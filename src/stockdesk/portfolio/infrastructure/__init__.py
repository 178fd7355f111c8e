"""Adapters of the portfolio context: the SQL store."""
