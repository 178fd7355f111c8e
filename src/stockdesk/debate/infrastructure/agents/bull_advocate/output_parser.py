"""Strict parser of the bull advocate's answer: a thesis and at least one supporting argument."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.bull_bear import BullArgument
from stockdesk.debate.infrastructure.agents.sampling import parse_answer


def parse_bull_argument(raw: str) -> BullArgument:
    return parse_answer(raw, BullArgument, "bull_advocate")
