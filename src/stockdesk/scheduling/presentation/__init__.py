"""`stockdesk schedule|scheduler` and the REST routes of schedules."""
