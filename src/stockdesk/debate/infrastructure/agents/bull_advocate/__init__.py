"""Debate agent: bull_advocate."""
