"""Briefing: infrastructure."""
