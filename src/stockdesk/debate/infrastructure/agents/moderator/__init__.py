"""The panel moderator: continue or end, the conclusion, and the DebateOutcome fields."""
