"""Debate's adapters over other contexts."""
