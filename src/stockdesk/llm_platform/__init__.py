"""Bounded context: llm_platform."""
