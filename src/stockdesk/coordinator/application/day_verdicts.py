"""A day's rules verdict of one symbol as a typed model: the one source of the daily verdicts the
paper book trades on and the portfolio view sizes from.

Each verdict is the one `stockdesk analyze SYMBOL --as-of D --rules-only` gives (the same request
through the same service), run with the coordinator's own ledger recording off: the caller decides
whether and under which name a verdict is entered (the paper book enters its own; the portfolio
view enters none). `RulesDayVerdicts.run` also hands back the session, for a caller that records it.

The main horizon is the signal model's (`signal_model.horizon`), else MAIN_HORIZON; the probability
of a rise is the verdict's calibrated P(excess return > 0) there, None when it is uncalibrated.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.coordinator.application.coordinator_service import ResearchCoordinatorService
from stockdesk.coordinator.domain.dtos.session import ResearchRequest, ResearchSession
from stockdesk.shared.errors import StockdeskError

MAIN_HORIZON = 20
"""Trading days: the horizon a verdict's probability is read at when it names none."""


class SymbolVerdict(BaseModel):
    """The rules verdict of `symbol` as of `day` (action None: no verdict, `note` says why)."""

    day: date
    symbol: str
    action: str | None = Field(description="BUY | SELL | HOLD, None without a verdict")
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    horizon: int = Field(default=MAIN_HORIZON, ge=1, description="trading days of the main horizon")
    probability_up: float | None = Field(
        default=None, ge=0.0, le=1.0, description="calibrated P(excess return > 0) at the main horizon"
    )
    calibrated: bool = False
    sample_size: int | None = Field(default=None, description="past outcomes the calibration rests on")
    close: float | None = Field(default=None, description="the close the trade plan is priced at")
    stop: float | None = None
    target: float | None = None
    atr: float | None = None
    note: str = ""


class DayRun(BaseModel):
    """A verdict and the session it came from (None when the run failed)."""

    verdict: SymbolVerdict
    session: ResearchSession | None = None


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def symbol_verdict(session: ResearchSession, day: date) -> SymbolVerdict:
    """The typed verdict of a finished rules session."""
    verdict = session.verdict or {}
    action = str(verdict.get("action") or "").upper() or None
    if action is None:
        note = "; ".join(str(e) for e in session.errors.values()) or "no verdict"
        return SymbolVerdict(day=day, symbol=session.symbol, action=None, note=note)
    model = verdict.get("signal_model") or {}
    horizon = int(model.get("horizon") or MAIN_HORIZON)
    key = str(horizon)
    probability = (verdict.get("probability_up") or {}).get(key)
    calibration = (verdict.get("calibration") or {}).get(key) or {}
    plan = verdict.get("trade_plan") or {}
    return SymbolVerdict(
        day=day, symbol=session.symbol, action=action, confidence=float(verdict.get("confidence") or 0.0),
        horizon=horizon, probability_up=_number(probability),
        calibrated=bool(verdict.get("calibrated")) and probability is not None,
        sample_size=int(calibration["n"]) if calibration.get("n") is not None else None,
        close=_number(plan.get("entry_price")), stop=_number(plan.get("stop_loss_price")),
        target=_number(plan.get("take_profit_price")), atr=_number(plan.get("atr")),
        note=str(verdict.get("evidence") or ""),
    )  # fmt: skip


class RulesDayVerdicts:
    """The coordinator's rules verdicts of a day, one symbol at a time (no LLM)."""

    def __init__(self, coordinator: Callable[[], ResearchCoordinatorService]):
        self._coordinator = coordinator

    def run(self, symbol: str, day: date) -> DayRun:
        request = ResearchRequest(
            symbol=symbol, as_of=day, rules_only=True, record_verdict=False, ignore_holdings=True
        )  # a book's or a view's own positions decide its trades, not the holder's plan
        try:
            session = self._coordinator().run(request)
        except StockdeskError as error:
            return DayRun(verdict=SymbolVerdict(day=day, symbol=symbol, action=None, note=error.message))
        return DayRun(verdict=symbol_verdict(session, day), session=session)

    def verdicts(self, symbols: list[str], day: date) -> list[SymbolVerdict]:
        """One per symbol, in order."""
        return [self.run(symbol, day).verdict for symbol in symbols]
