"""Application layer: services and use cases; depends on domain ports only."""
