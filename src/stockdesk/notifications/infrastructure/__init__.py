"""Channel senders (SMTP, webhooks over httpx), their payload formats, and the delivery records table."""
