"""Bounded context: judge."""
