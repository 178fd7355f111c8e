"""The digest and what a delivery left behind (pure: no I/O)."""
