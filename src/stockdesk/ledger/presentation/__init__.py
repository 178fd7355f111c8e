"""The ledger has no commands of its own: `stockdesk track` (evaluation) reads and verifies it."""
