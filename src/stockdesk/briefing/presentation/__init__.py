"""Briefing: presentation."""
