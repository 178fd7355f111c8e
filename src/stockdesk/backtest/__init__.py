"""Backtest: the one execution module for fills, costs and simulations.

The strategy lab backtests its strategies with it, evaluation scores verdicts with it and research
reads forward returns from it; it imports nothing else of the desk's. Everything is pure
computation over pandas frames, so it lives in `application/` (there is no store, no SDK and no
presentation of its own).
"""
