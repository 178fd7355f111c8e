"""Debate's REST routes."""
