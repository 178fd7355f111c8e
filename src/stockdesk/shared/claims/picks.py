"""Picks of evidence cards read against the cards' directions: choices mode's one check.

The debate's advocates and resolution and the judge pick card ids; which directions each field may
take is their rule (a bull supports with cards read bullish or neutral, a BUY's decisive cards are
not bearish, ...). This is the one place a pick is refused, worded for the re-ask, and dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

logger = logging.getLogger(__name__)
A = TypeVar("A")

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


@dataclass
class PickRound(Generic[A]):
    """One choices round: every answer parsed (for the audit), the one kept, what its first answer
    got wrong and what was still wrong in the kept one (to be dropped by the caller)."""

    answers: list[A]
    final: A
    first_wrong: list[str] = field(default_factory=list)
    still: list[str] = field(default_factory=list)
    retried: bool = False

    def record(self) -> dict[str, Any]:
        return {"first_wrong": self.first_wrong, "retried": self.retried, "dropped": self.still}


def pick_round(
    ask: Callable[[str | None], A],
    wrong: Callable[[A], list[str]],
    header: str,
    *,
    unparsed: tuple[type[Exception], ...],
    reask: Callable[[list[str]], bool] = bool,
    accept: Callable[[A, A], bool] = lambda first, retry: True,
) -> PickRound[A]:
    """Choices mode's one round for every agent that picks cards: `ask(None)`, its `wrong` picks;
    when `reask(wrong)` (default: any), one `ask(header + the reasons)`, kept when `accept(first,
    retry)` (the judge keeps its first action); a re-ask that raises one of `unparsed` (the caller's
    parse error: this kernel imports nothing of the desk's) keeps the first.
    What the kept answer still gets wrong is `still`: the caller drops it, never guesses."""
    first = ask(None)
    first_wrong = wrong(first)
    done = PickRound([first], first, first_wrong, first_wrong)
    if not reask(first_wrong):
        return done
    done.retried = True
    try:
        retry = ask(header + "\n" + "\n".join(f"- {w}" for w in first_wrong))
    except unparsed:
        logger.warning("a re-ask for wrong picks did not parse; the first answer is kept")
        return done
    done.answers.append(retry)
    if accept(first, retry):
        done.final = retry
        done.still = wrong(retry)
    return done
