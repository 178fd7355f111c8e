"""Guards on what a research expert writes: grounding of quoted numbers, and no trade instructions.

Grounding now lives in the shared kernel (stockdesk.shared.claims), where the debate and the judge
use it too; the names stay importable from here. Trade instructions are research's own rule:
research experts must not tell anyone to buy or sell (the judge does that).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stockdesk.shared.claims import (
    Texts,
    Violation,
    check_grounding,
    is_grounded,
    numbers_in_text,
    snapshot_numbers,
)
from stockdesk.shared.claims.grounding import SMALL_INTEGER_LIMIT
from stockdesk.shared.claims.scope import claims_of, field_items

__all__ = [
    "SMALL_INTEGER_LIMIT",
    "TRADE_INSTRUCTION_PATTERNS",
    "check_grounding",
    "is_grounded",
    "numbers_in_text",
    "snapshot_numbers",
    "trade_instructions",
    "trade_violations",
]

TRADE_INSTRUCTION_PATTERNS = [
    r"建议(?:买入|卖出|增持|减持|加仓|减仓|清仓|持有)",
    r"立即(?:建仓|买入|卖出|清仓|加仓)",
    r"(?:逢低|逢高)(?:买入|卖出|吸纳)",
    r"(?:满仓|清仓|重仓)",
    r"买入评级|卖出评级",
    r"\b(?:buy|sell) now\b",
    r"\bstrong (?:buy|sell)\b",
    r"\b(?:we |i )?recommend (?:buying|selling)\b",
    r"\bshould (?:buy|sell)\b",
]
_TRADE = re.compile("|".join(TRADE_INSTRUCTION_PATTERNS), re.IGNORECASE)


def trade_instructions(texts: Iterable[str]) -> list[str]:
    return sorted({m.group(0) for text in texts for m in _TRADE.finditer(text)})


def trade_violations(texts: Texts) -> list[Violation]:
    """Each sentence giving a trade instruction, as a violation (dropped if it survives a repair)."""
    found = []
    for field, value in texts.items():
        for item, text in field_items(value):
            for claim in claims_of(field, item, text):
                for match in _TRADE.finditer(claim.clause):
                    detail = f"「{claim.sentence}」给出了交易指令“{match.group(0)}”：研究员只做分析判断。"
                    found.append(claim.violation("trade_instruction", detail, match.group(0)))
    return list({(v.field, v.item, v.text, v.term): v for v in found}.values())
