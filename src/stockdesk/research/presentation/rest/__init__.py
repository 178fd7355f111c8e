"""REST routes of the research experts (symmetric responses: input, output, <expert>_indicators)."""
