"""Schedules and their runs: types, timing, errors and the store port."""
