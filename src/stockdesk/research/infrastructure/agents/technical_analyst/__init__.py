"""Technical analyst agent."""
