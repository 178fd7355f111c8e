"""Debate's closed vocabularies."""

from __future__ import annotations

from enum import StrEnum


class DebateDirection(StrEnum):
    BULLISH = "BULLISH"
    BEARISH = "BEARISH"
    NEUTRAL = "NEUTRAL"


class DebateMode(StrEnum):
    BULL_BEAR = "bull-bear"
    PANEL = "panel"


class PanelAction(StrEnum):
    BUY = "BUY"
    HOLD = "HOLD"
    SELL = "SELL"
