"""Debate agent: bear_advocate."""
