"""Check a session's debate and verdict text against its cards and its action (issue 30's check).

Reads the full session JSON (`stockdesk report <id> --out s.json`) with the json module only and
counts: reasoning/action contradictions (the verdict's reasoning or risk warnings advising another
action), bull supports resting on a card read bearish (direction < 0), bear supports on a card read
bullish (> 0), and texts whose last sentence has no terminal punctuation. Every card the debate
text quotes is also checked to show the same number as the expert's key figures.
Usage: python scripts/check_session_text.py s.json   (exit 1 when any count is not 0)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

TERMINAL = ("。", "！", "？", ".", "!", "?", "…", "」", "”", "）", ")")
ADVICE = {
    "BUY": re.compile(r"(?<![不未暂勿别])(?:支持|建议|应当|应该|宜|值得)(?:买入|建仓|加仓)|recommend buying"),
    "SELL": re.compile(
        r"(?<![不未暂勿别])(?:支持|建议|应当|应该|宜)(?:卖出|减仓|清仓|离场)|recommend selling"
    ),
}


def cards_of(session: dict[str, Any]) -> dict[str, dict[str, Any]]:
    views = (session.get("aggregation") or {}).get("digests") or []
    return {c["id"]: c for v in views for c in v.get("cards") or []}


def texts_of(session: dict[str, Any]) -> list[str]:
    debate = session.get("debate_outcome") or {}
    bull, bear = debate.get("bull_case") or {}, debate.get("bear_case") or {}
    verdict = session.get("verdict") or {}
    found = [bull.get("core_thesis"), bear.get("core_thesis"), debate.get("conflict_resolution")]
    found += [*bull.get("supporting_arguments", []), *bull.get("acknowledged_risks", [])]
    found += [*bear.get("supporting_arguments", []), *bear.get("acknowledged_strengths", [])]
    found += [
        *debate.get("key_disagreements", []),
        verdict.get("reasoning"),
        *verdict.get("risk_warnings", []),
    ]
    return [t for t in found if isinstance(t, str) and t.strip()]


def quoted_cards(texts: list[str], cards: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in cards.values() if any(c["text_zh"] in t for t in texts)]


def main(path: str) -> int:
    session = json.loads(Path(path).read_text(encoding="utf-8"))
    cards, texts = cards_of(session), texts_of(session)
    debate, verdict = session.get("debate_outcome") or {}, session.get("verdict") or {}
    action = str(verdict.get("action") or "")
    said = [verdict.get("reasoning") or "", *(verdict.get("risk_warnings") or [])]
    contradictions = [t for other, rule in ADVICE.items() if other != action for t in said if rule.search(t)]
    bull_text = [
        debate.get("bull_case", {}).get("core_thesis", ""),
        *debate.get("bull_case", {}).get("supporting_arguments", []),
    ]
    bear_text = [
        debate.get("bear_case", {}).get("core_thesis", ""),
        *debate.get("bear_case", {}).get("supporting_arguments", []),
    ]
    bull_wrong = [c["id"] for c in quoted_cards(bull_text, cards) if c["direction"] < 0]
    bear_wrong = [c["id"] for c in quoted_cards(bear_text, cards) if c["direction"] > 0]
    unfinished = [t for t in texts if not t.rstrip().endswith(TERMINAL)]
    views = {v["expert"]: v for v in (session.get("aggregation") or {}).get("digests") or []}
    mismatched = [
        c["id"]
        for c in quoted_cards(texts, cards)
        for name, value in c.get("figures", {}).items()
        if name in views.get(c["expert"], {}).get("key_figures", {})
        and float(views[c["expert"]]["key_figures"][name]) != float(value)
    ]
    counts = {
        "reasoning/action contradictions": contradictions,
        "bull supports with direction < 0": bull_wrong,
        "bear supports with direction > 0": bear_wrong,
        "sentences without terminal punctuation": unfinished,
        "quoted cards whose number differs from the key figures": mismatched,
    }
    print(
        f"{path}: action {action or '-'}, {len(cards)} cards, {len(texts)} texts, "
        f"{len(quoted_cards(texts, cards))} cards quoted"
    )
    for what, found in counts.items():
        print(f"  {len(found)} {what}" + (f": {found}" if found else ""))
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
