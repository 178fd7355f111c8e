"""Jinja2 templates that render standalone strategy modules from validated parameters."""
