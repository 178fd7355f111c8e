"""Composition root: wires contexts into the CLI and the REST application."""
