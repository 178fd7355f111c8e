"""Valuation modeler agent (spec: research-valuation-modeler)."""
