"""LLM agents of the strategy lab."""
