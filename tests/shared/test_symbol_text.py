"""The schema's symbol pattern admits exactly the symbols `normalize_symbol` accepts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.data_engineering.domain.symbols import normalize_symbol
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.symbol_text import SYMBOL_PATTERN

PATTERN = re.compile(SYMBOL_PATTERN)
ALPHABET = "0123456789.-ABHJKSTWZhjkstwz "
SAMPLES = ["600519.SH", "sh.600000", "SH600000", "600519", "0700.HK", "2330.tw", "aapl", "BRK.B", "0",
           "100000", "60$$1", "", "600519.SX", "A" * 11, "sz000001", "830799.bj"]  # fmt: skip


def accepted(text: str) -> bool:
    try:
        normalize_symbol(text)
    except BadRequestException:
        return False
    return True


def test_known_spellings_agree() -> None:
    for text in SAMPLES:
        assert bool(PATTERN.match(text)) == accepted(text), text


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=12) | st.from_regex(SYMBOL_PATTERN, fullmatch=True))
def test_pattern_and_normalizer_accept_the_same_language(text: str) -> None:
    stripped_same = text == text.strip()  # the normalizer strips spaces; the schema admits none
    if stripped_same:
        assert bool(PATTERN.match(text)) == accepted(text), text
    else:
        assert not PATTERN.match(text)
