"""One panel expert agent; the role (fundamental, risk, growth, sentiment) comes from prompts/roles/."""
