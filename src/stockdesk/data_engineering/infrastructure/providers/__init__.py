"""Remote market data providers behind `data sync`: each returns canonical frames (`domain/frames.py`).

Every remote call goes through `resilience.ProviderCaller` (token-bucket rate limit, timeout,
retries with exponential backoff on transient errors); SDK modules, clients and HTTP transports are
constructor arguments so that tests feed recorded-shape fixtures without a network.
"""
