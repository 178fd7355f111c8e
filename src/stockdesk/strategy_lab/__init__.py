"""Bounded context: strategy_lab."""
