"""The grammar of a stock symbol as REST parameters take it, for the OpenAPI schema to state.

It admits exactly what `data_engineering.domain.symbols.normalize_symbol` accepts (any letter case):
`600519.SH`, `sh.600000`, `SH600000`, a bare 6-digit A-share code whose leading digit names an
exchange, `0700.HK`, `2330.TW`, and US tickers; a test holds the two to the same language.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" for c in word)


_CN = "(?:" + "|".join(_any_case(x) for x in ("SH", "SZ", "BJ")) + ")"
_HK_TW = "(?:" + "|".join(_any_case(x) for x in ("HK", "TW")) + ")"
SYMBOL_PATTERN = (
    rf"^(?:[0-9]{{6}}\.{_CN}|{_CN}\.?[0-9]{{6}}|[0234689][0-9]{{5}}|[0-9]{{4,5}}\.{_HK_TW}"
    r"|[A-Za-z][A-Za-z0-9.\-]{0,9})$"
)
SymbolText = Annotated[str, StringConstraints(pattern=SYMBOL_PATTERN)]
