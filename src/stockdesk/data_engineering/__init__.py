"""Bounded context: data_engineering."""
