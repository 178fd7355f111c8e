"""Debate agent: resolution."""
