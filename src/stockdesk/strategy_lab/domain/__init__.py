"""Strategy lab domain: parameter schema, DTOs, ports and errors."""
