"""Rules mode: the walk-forward signal model's verdicts, with research's code signals as voices.

`prepare` runs the model once over the whole universe and every evaluation date
(`research.application.signal_model.run_model`: factors, labels known by each date, fits and
calibration); each point's verdict then reads its row: the action and calibrated confidence,
`probability_up` and its calibration per horizon, and the expert groups' contributions. The code
signals of the asked experts are still computed per point: they are the verdict's voices (the
attribution table) and the technical fields the trade plan sizes the position from.

The model's run is kept per process for the config it was prepared for (a Ray worker computes it
once, not once per batch).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

import pandas as pd

from stockdesk.backtest.application import index_levels, limit_lookup
from stockdesk.evaluation.application.market import EvaluationMarket
from stockdesk.evaluation.application.schedule import evaluation_dates
from stockdesk.evaluation.domain.dtos import (
    EvaluationConfig,
    EvaluationMode,
    ExpertVoice,
    Verdict,
)
from stockdesk.evaluation.domain.ports import IVerdictSource
from stockdesk.judge.application import JudgeService, is_sufficient, signals_with_data
from stockdesk.research.application import RulesEvidence, RulesSignalService, model_view
from stockdesk.research.application.signal_model.run import ModelInputs, run_model_with_report
from stockdesk.shared.tasks import config_hash

Rows = dict[tuple[str, pd.Timestamp], dict[str, Any]]
_RUNS: dict[str, tuple[Rows, dict[str, Any]]] = {}  # config hash -> (rows, what the model learned)


class RulesVerdictSource(IVerdictSource):
    mode = EvaluationMode.RULES
    batch_size = 1000  # ~1-2 s of work: a killed run loses at most that; histories load once a batch

    def __init__(
        self,
        signals: Callable[[], RulesSignalService],
        judge: Callable[[], JudgeService],
        market: EvaluationMarket,
    ):
        """`market`: the universe's securities and bars the model is run over (in `prepare`)."""
        self._signals = signals
        self._judge = judge
        self._market = market
        self._config: EvaluationConfig | None = None
        self._rows: Rows | None = None
        self._report: dict[str, Any] = {}

    def prepare(self, config: EvaluationConfig) -> None:
        key = config_hash(config.model_dump(mode="json"))
        if key not in _RUNS:
            _RUNS.clear()
            rows, report = self._run(config)
            _RUNS[key] = (
                {(r["symbol"], pd.Timestamp(r["date"])): r for r in rows.to_dict("records")},
                report,
            )
        self._config, (self._rows, self._report) = config, _RUNS[key]

    def model_report(self) -> dict[str, Any]:
        return self._report

    def _run(self, config: EvaluationConfig) -> tuple[pd.DataFrame, dict[str, Any]]:
        market = self._market
        securities = market.securities(config.symbols)
        universe = [s for s in config.symbols if s in securities]
        bars = market.bars(universe, date(1990, 1, 1), None)
        levels_from = [config.benchmark] if config.benchmark else universe
        if config.benchmark:
            bars_with_benchmark = market.bars([*universe, config.benchmark], date(1990, 1, 1), None)
            levels = index_levels(bars_with_benchmark, levels_from)
        else:
            levels = index_levels(bars, levels_from)
        planned = evaluation_dates(bars, config.start, config.end, config.every)
        dates = sorted({d for days in planned.values() for d in days})
        if not dates:
            return pd.DataFrame(columns=["symbol", "date"]), {}
        inputs = ModelInputs(
            universe=universe, dates=dates, horizons=config.horizons, bars=bars,
            markets={s: i.market for s, i in securities.items()},
            limits=limit_lookup({s: i.name for s, i in securities.items()}),
            levels=levels, hold_band=config.hold_band, slippage=config.slippage,
        )  # fmt: skip
        factors = self._signals().factors
        if factors is None:
            raise RuntimeError("rules signals were built without the factor library")
        return run_model_with_report(factors, inputs)

    def verdicts(
        self, points: Mapping[str, Sequence[date]], experts: Sequence[str]
    ) -> dict[tuple[str, date], Verdict | Exception]:
        if self._rows is None or self._config is None:
            raise RuntimeError("RulesVerdictSource.verdicts before prepare")
        judge = self._judge()
        evidence = self._signals().evidence(points, experts)
        return {
            (symbol, day): self._verdict(judge, symbol, day, found)
            for symbol, by_day in evidence.items()
            for day, found in by_day.items()
        }

    def _verdict(
        self, judge: JudgeService, symbol: str, day: date, found: RulesEvidence
    ) -> Verdict | Exception:
        if "*" in found.errors:
            return LookupError(found.errors["*"])
        if not is_sufficient(signals_with_data(found.code_signals)):  # no evidence, no verdict
            return _insufficient()
        assert self._rows is not None and self._config is not None
        key = (symbol, pd.Timestamp(day))
        if key not in self._rows:
            return LookupError(f"{symbol} has no factor on {day}: no data by then")
        view = model_view(self._rows[key], symbol, day, len(self._config.symbols))
        call = judge.rules_call(  # the same rules verdict analyze gives: bound, plan and size
            {
                "code_signals": found.code_signals,
                "stances": {n: s["stance"] for n, s in found.code_signals.items()},
                "technical": found.technical or {},
                "model": {**view.model_dump(mode="json"), "note": view.words()},
            },
        )
        if call.action is None:
            return _insufficient()
        return Verdict(
            action=call.action.value,
            confidence=call.confidence,
            position_percent=call.position_percent,
            probability_up=view.probability_up,
            calibration=view.calibration,
            contributions=view.contributions,
            experts={
                n: ExpertVoice(stance=s["stance"], confidence=s["confidence"])
                for n, s in found.code_signals.items()
                if s["confidence"] > 0
            },
        )


def _insufficient() -> Verdict:
    """No evidence, no verdict: HOLD without a position (fewer than two experts with data)."""
    return Verdict(action="HOLD", confidence=0.0, position_percent=0.0, evidence="insufficient")
