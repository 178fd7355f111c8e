"""Infrastructure layer: adapters that implement the domain ports."""
