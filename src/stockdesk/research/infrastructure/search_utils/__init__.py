"""Helpers the search-driven data adapters are given (filters), kept swappable."""
