"""LLM agents of the research experts: prompts (resource files), the call, the output parser."""
