"""Debate's LLM agents: prompt resources beside a strict output parser."""
