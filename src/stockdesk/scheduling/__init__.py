"""Scheduled runs: a watchlist analysed after the close on the store's trading days, its digest delivered."""
