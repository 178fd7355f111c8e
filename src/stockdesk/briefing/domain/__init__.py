"""Briefing: domain."""
