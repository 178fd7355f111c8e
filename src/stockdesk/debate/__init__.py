"""Bounded context: debate."""
