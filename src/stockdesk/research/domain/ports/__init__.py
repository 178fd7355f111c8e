"""Research ports: data, snapshot builders, agents and the LLM, each implemented in infrastructure."""
