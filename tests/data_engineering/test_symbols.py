"""Symbol normalisation accepts provider spellings and rejects junk with distinguishable codes."""

from __future__ import annotations

import pytest

from stockdesk.data_engineering.domain.symbols import market_of, normalize_symbol
from stockdesk.shared.errors import BadRequestException


@pytest.mark.parametrize(
    ("raw", "canonical", "market"),
    [
        ("600519.SH", "600519.SH", "CN"),
        ("600519", "600519.SH", "CN"),
        ("sh.600000", "600000.SH", "CN"),
        ("SZ000338", "000338.SZ", "CN"),
        ("000338", "000338.SZ", "CN"),
        ("830799", "830799.BJ", "CN"),
        (" aapl ", "AAPL", "US"),
        ("BRK.B", "BRK.B", "US"),
        ("0700.HK", "0700.HK", "HK"),
        ("2330.tw", "2330.TW", "TW"),
    ],
)
def test_normalize(raw: str, canonical: str, market: str) -> None:
    assert normalize_symbol(raw) == canonical
    assert market_of(canonical) == market


@pytest.mark.parametrize(
    ("raw", "code"), [("", "SYMBOL_REQUIRED"), ("  ", "SYMBOL_REQUIRED"), ("60$19", "INVALID_SYMBOL")]
)
def test_bad_symbols(raw: str, code: str) -> None:
    with pytest.raises(BadRequestException) as info:
        normalize_symbol(raw)
    assert info.value.code == code
