"""Evaluation: replays the desk over past dates and scores its verdicts against what the market did next."""
