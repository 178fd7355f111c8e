"""Bounded context: research."""
