"""The SQL store of schedules and runs."""
