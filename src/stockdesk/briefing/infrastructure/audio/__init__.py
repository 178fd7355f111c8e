"""Spoken briefing scripts through the espeak-ng binary (an optional system package)."""
