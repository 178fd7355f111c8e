"""`stockdesk strategy ...` commands."""
