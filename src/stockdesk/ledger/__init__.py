"""The verdict ledger: every verdict the desk issues, append-only, in a sha256 hash chain."""
