"""Strict parser of the bear advocate's answer: a thesis and at least one supporting argument."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.bull_bear import BearArgument
from stockdesk.debate.infrastructure.agents.sampling import parse_answer


def parse_bear_argument(raw: str) -> BearArgument:
    return parse_answer(raw, BearArgument, "bear_advocate")
