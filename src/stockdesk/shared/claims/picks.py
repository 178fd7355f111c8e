"""Picks of evidence cards read against the cards' directions: choices mode's one check.

The debate's advocates and resolution and the judge pick card ids; which directions each field may
take is their rule (a bull supports with cards read bullish or neutral, a BUY's decisive cards are
not bearish, ...). This is the one place a pick is refused, worded for the re-ask, and dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SIDE_ZH = {1: "利多", 0: "中性", -1: "利空"}
ARROW = {1: "↑利多", 0: "·中性", -1: "↓利空"}


def card_line(card_id: str, text_zh: str, direction: int) -> str:
    """`[id] text（↑利多）`: how every prompt lists a card: the id a choice names, the code's
    words and the code's direction."""
    return f"[{card_id}] {text_zh}（{ARROW[direction]}）"


def refused_picks(
    picks: Mapping[str, Any], allowed: Mapping[str, set[int]], directions: Mapping[str, int], rule: str
) -> list[str]:
    """Each refused pick as `<field>:<id>：reason` (an id that names no card, or a card whose
    direction the field does not allow), in the order given; `rule` ends each reason."""
    refused = []
    for name, directions_allowed in allowed.items():
        for card_id in picks.get(name) or []:
            direction = directions.get(card_id)
            if direction is None:
                refused.append(f"{name}:{card_id}：没有这张卡")
            elif direction not in directions_allowed:
                refused.append(f"{name}:{card_id}：方向为{SIDE_ZH[direction]}，{rule}")
    return refused


def kept_picks(picks: Mapping[str, Any], fields: list[str], refused: list[str]) -> dict[str, Any]:
    """`picks` without the refused ids in `fields` (ids unique, order kept)."""
    gone = {r.split("：", 1)[0] for r in refused}
    out = dict(picks)
    for name in fields:
        ids = [c for c in picks.get(name) or [] if f"{name}:{c}" not in gone]
        out[name] = list(dict.fromkeys(ids))
    return out
