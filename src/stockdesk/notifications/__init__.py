"""Notifications: a run's digest (changes first, then the table) delivered to email and chat channels."""
