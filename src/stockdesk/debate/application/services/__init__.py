"""Debate's application services."""
