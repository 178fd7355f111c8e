"""Debate's application DTOs."""
