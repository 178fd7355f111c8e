"""Domain layer: DTOs, ports and exceptions; imports nothing from other layers."""
