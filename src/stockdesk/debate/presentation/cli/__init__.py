"""Debate's CLI commands."""
