"""`stockdesk notify list|test`."""
