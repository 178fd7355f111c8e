"""File exporters: write our own store out in portable formats (read back by `importers`)."""
