"""Choices mode for the research experts: one agent, one prompt, a role file per expert."""
