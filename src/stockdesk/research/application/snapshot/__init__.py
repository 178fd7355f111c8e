"""Pure snapshot builders: every number an expert's prompt shows is computed here."""
