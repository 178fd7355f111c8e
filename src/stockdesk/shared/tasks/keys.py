"""Task keys of jobs whose tasks are one per item of an ordered list (a symbol, a ticker):
`[prefix]NNNN:ITEM`. The zero-padded index keeps the tasks in the list's order (the store sorts keys
as text), and the item is read back from the key. The formats are stored in jobs' tasks, so a kind
keeps its width and prefix: a resumed job must find its keys unchanged."""

from __future__ import annotations


def indexed_key(index: int, item: str, *, width: int = 4, prefix: str = "") -> str:
    """`indexed_key(3, "600519.SH")` is `0003:600519.SH`."""
    return f"{prefix}{index:0{width}d}:{item}"


def item_of(key: str) -> str:
    """The item of an indexed key (items hold no colon: symbols and tickers)."""
    return key.rsplit(":", 1)[1]
