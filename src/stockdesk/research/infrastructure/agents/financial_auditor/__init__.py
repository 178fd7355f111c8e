"""Financial auditor agent."""
