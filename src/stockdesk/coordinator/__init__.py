"""Bounded context: coordinator."""
