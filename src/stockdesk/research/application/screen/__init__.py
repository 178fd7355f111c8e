"""The whole-market screen: figures of every stored symbol, filtered by a `--where` expression."""
