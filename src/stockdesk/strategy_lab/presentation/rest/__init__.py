"""Strategy lab REST routes."""
