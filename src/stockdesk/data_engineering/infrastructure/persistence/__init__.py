"""SQLAlchemy store of market data (securities, bars, valuations, financials, news, filings)."""
