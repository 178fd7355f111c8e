"""Adapters of the strategy lab onto other contexts' application interfaces."""
