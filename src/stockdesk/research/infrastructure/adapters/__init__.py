"""Adapters: research ports implemented over other contexts' application interfaces."""
