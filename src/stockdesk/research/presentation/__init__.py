"""Presentation layer: REST routes and CLI commands."""
