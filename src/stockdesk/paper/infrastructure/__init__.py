"""The paper book's store and its adapters to the coordinator, the ledger and the market data."""
