"""`stockdesk evaluate --mode rules` on a generated market in a real store: points, returns, resume."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.dtos import EvaluationConfig, EvaluationReport
from stockdesk.evaluation.presentation.report import write_report
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.evaluation.market import populate, symbols

NAMES = symbols(6)


@pytest.fixture
def frames(database: Database) -> dict[str, pd.DataFrame]:
    return populate(database, NAMES)


@pytest.fixture
def app(settings: Settings, frames: dict[str, pd.DataFrame]) -> Iterator[AppContainer]:
    container = AppContainer(settings)
    yield container
    container.close()


def config(**changes: object) -> EvaluationConfig:
    base = dict(symbols=NAMES, start=date(2022, 3, 1), end=date(2023, 12, 29), every=20, horizons=[5, 20])
    return EvaluationConfig.model_validate({**base, **changes})


def independent_forward_return(bars: pd.DataFrame, symbol: str, as_of: date, h: int) -> float | None:
    """The issue's definition, computed row by row: adjusted close of the h-th trading day (entry
    day = day 1) over the adjusted open of the first trading day after as_of, minus 1."""
    rows = bars[(bars["symbol"] == symbol) & (bars["volume"] > 0)].sort_values("trade_date")
    after = rows[rows["trade_date"] > pd.Timestamp(as_of)]
    if len(after) < h:
        return None
    entry, exit_ = after.iloc[0], after.iloc[h - 1]
    return float(exit_["close"] * exit_["adj_factor"] / (entry["open"] * entry["adj_factor"]) - 1)


def test_rules_points_have_the_forward_returns_of_an_independent_computation(
    app: AppContainer, frames: dict[str, pd.DataFrame]
) -> None:
    report = app.evaluation.service.run(config())
    assert len(report.points) > 100 and not report.failed
    checked = 0
    for point in report.points:
        for h in (5, 20):
            expected = independent_forward_return(frames["bars"], point.symbol, point.as_of, h)
            got = point.forward_returns[str(h)]
            if expected is None:
                assert got is None
            else:
                assert got == pytest.approx(expected, abs=1e-8), (point.symbol, point.as_of, h)
                checked += 1
        assert point.entry_date is not None and point.entry_date > point.as_of
        assert point.session_id is None and point.in_training_window  # 2022-23 is before the cutoff
    assert checked > 200


def test_the_json_contract_holds_points_metrics_baselines_and_portfolio(
    app: AppContainer, tmp_path: Path
) -> None:
    report = app.evaluation.service.run(config())
    out = write_report(report, tmp_path / "e.json")
    data = json.loads(out.read_text())
    assert {"config", "points", "llm_calls", "tokens", "metrics", "portfolio"} <= set(data)
    assert data["llm_calls"] == 0 and data["tokens"] == 0
    point = data["points"][0]
    assert {"symbol", "as_of", "action", "confidence", "position_percent", "entry_date", "entry_price",
            "filled", "forward_returns", "excess_returns", "session_id"} <= set(point)  # fmt: skip
    assert set(data["metrics"]) == {"rules", "always_hold", "buy_and_hold"}
    for name in data["metrics"]:
        for h in ("5", "20"):
            figures = data["metrics"][name][h]
            assert {"mean", "icir", "t"} <= set(figures["rank_ic"])
            assert {"brier", "brier_skill", "ece", "after_cutoff", "benchmark_up", "benchmark_down"} <= set(
                figures
            )
    assert data["metrics"]["rules"]["20"]["rank_ic"]["dates"] > 10  # six symbols: an IC per date
    assert "bootstrap" in data["metrics"]["always_hold"]["20"]  # compared with the rules baseline
    assert data["metrics"]["rules"]["20"]["experts"]  # attribution of the code signals
    assert set(data["portfolio"]["curves"]) == {"rules", "always_hold", "buy_and_hold"}
    assert len(data["portfolio"]["dates"]) == len(data["portfolio"]["curves"]["rules"])
    assert "rules mode: rank IC" in data["summary"]


def test_excess_return_is_the_forward_return_less_the_universe_over_the_same_window(
    app: AppContainer,
) -> None:
    report = app.evaluation.service.run(config())
    by_date: dict[date, list] = {}
    for p in report.points:
        by_date.setdefault(p.as_of, []).append(p)
    points = next(ps for _, ps in sorted(by_date.items()) if len(ps) == len(NAMES))
    # identical windows for all six (no suspension near this date): the universe's daily-rebalanced
    # index return lies within the members' range, so excess returns sum close to zero and order is kept
    excess = np.array([p.excess_returns["5"] for p in points])
    forward = np.array([p.forward_returns["5"] for p in points])
    assert np.argsort(excess).tolist() == np.argsort(forward).tolist()
    assert np.all(np.isclose(forward - excess, (forward - excess)[0]))  # one benchmark return per window


def test_a_rerun_resumes_every_task_and_gives_identical_output(app: AppContainer) -> None:
    first = app.evaluation.service.run(config())
    second = app.evaluation.service.run(config())
    assert first.resumed == 0 and second.resumed == len(second.points)
    same = {"resumed": 0}
    assert first.model_copy(update=same).model_dump_json() == second.model_copy(update=same).model_dump_json()


def test_an_interrupted_run_resumes_without_redoing_finished_tasks(
    app: AppContainer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stockdesk.evaluation.application.evaluation_service as service_module

    service = app.evaluation.service
    source = service._sources[service_module.EvaluationMode.RULES]()
    monkeypatch.setattr(type(source), "batch_size", 10)
    asked: list[tuple[str, date]] = []
    original = type(source).verdicts
    interrupt = [True]

    def counting(self, points, experts):  # type: ignore[no-untyped-def]
        batch = [(s, d) for s, days in points.items() for d in days]
        if len(asked) >= 30 and interrupt[0]:
            interrupt[0] = False
            raise KeyboardInterrupt
        asked.extend(batch)
        return original(self, points, experts)

    monkeypatch.setattr(type(source), "verdicts", counting)
    with pytest.raises(KeyboardInterrupt):
        service.run(config())
    done_first = list(asked)
    report = service.run(config())
    assert report.resumed == len(done_first) == 30
    assert len(asked) == len(report.points)  # every point computed exactly once over both runs
    assert len(set(asked)) == len(asked)


def test_the_html_report_opens_with_its_four_charts(app: AppContainer, tmp_path: Path) -> None:
    report = app.evaluation.service.run(config())
    html = write_report(report, tmp_path / "e.html").read_text()
    assert html.count("<svg") == 4 and "Not drawn" not in html
    three = app.evaluation.service.run(config(symbols=NAMES[:3]))  # too few symbols for a rank IC
    page = write_report(three, tmp_path / "three.html").read_text()
    assert page.count("<svg") == 3 and "Not drawn: Rank IC per date" in page
    for title in (
        "Follow-the-verdict portfolios",
        "Reliability",
        "Rank IC per evaluation date",
        "Hit rate by horizon",
    ):
        assert title in html
    assert report.summary in html
    assert "attribution" in html and "technical_analyst" in html


def test_a_symbol_not_in_the_store_is_a_clear_error(app: AppContainer) -> None:
    from stockdesk.shared.errors import NotFoundException

    with pytest.raises(NotFoundException, match=r"not in the store: NOPE\.SH"):
        app.evaluation.service.run(config(symbols=[NAMES[0], "NOPE.SH"]))


def test_the_report_round_trips_through_its_json(app: AppContainer) -> None:
    report = app.evaluation.service.run(config())
    assert EvaluationReport.model_validate_json(report.model_dump_json()) == report


def test_a_benchmark_symbol_gives_excess_returns_over_its_own_window(app: AppContainer) -> None:
    report = app.evaluation.service.run(config(benchmark=NAMES[0]))
    own = [p for p in report.points if p.symbol == NAMES[0] and p.forward_returns["5"] is not None]
    assert own and all(p.excess_returns["5"] == pytest.approx(0.0, abs=1e-12) for p in own)
    others = [p for p in report.points if p.symbol != NAMES[0] and p.excess_returns["20"] is not None]
    assert any(abs(p.excess_returns["20"]) > 1e-6 for p in others)


def test_one_symbol_without_a_benchmark_is_told_its_excess_returns_are_all_zero(app: AppContainer) -> None:
    alone = app.evaluation.service.run(config(symbols=NAMES[:1], every=60))
    assert all(v in (0.0, None) for p in alone.points for v in p.excess_returns.values())
    assert "name a --benchmark" in alone.summary
    named = app.evaluation.service.run(config(symbols=NAMES[:1], every=60, benchmark=NAMES[1]))
    assert "name a --benchmark" not in named.summary
