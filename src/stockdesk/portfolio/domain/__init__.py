"""Watchlists, positions and the portfolio store port."""
