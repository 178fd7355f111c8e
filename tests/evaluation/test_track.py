"""`stockdesk track` on a generated market in a real store: the ledger's entries scored like evaluate's
points, matured or not, live apart from retrospective, calibrated only by their own probability_up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import text
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.track import TrackConfig
from stockdesk.ledger.application import LedgerService, VerdictRecord
from stockdesk.ledger.infrastructure.persistence.ledger_store import SqlLedgerStore
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.exports import chromium_path
from tests.evaluation.market import populate, symbols
from tests.evaluation.test_evaluate_rules import independent_forward_return

NAMES = symbols(6)
DAYS = [date(2023, 3, 1), date(2023, 6, 1), date(2023, 9, 1)]
LATE = date(2024, 6, 14)
STANCE = {
    "BUY": "bullish",
    "SELL": "bearish",
    "HOLD": "neutral",
}  # 10 trading days before the last bar: matured at 5, not at 20 or 60


@pytest.fixture
def frames(database: Database) -> dict[str, pd.DataFrame]:
    return populate(database, NAMES)


def ledger_at(database: Database, moment: datetime) -> LedgerService:
    return LedgerService(SqlLedgerStore(database), clock=lambda: moment)


def record(
    entry_id: str, symbol: str, as_of: date, action: str, p: float | None, **changes: object
) -> VerdictRecord:
    base = dict(
        entry_id=entry_id, symbol=symbol, as_of=as_of, mode="rules", model="rules", action=action,
        confidence=0.6, position_percent=0.1 if action == "BUY" else 0.0, probability_up=p,
        verdict={"action": action}, inputs_hash="0" * 64,
        experts={"technical_analyst": {"stance": STANCE[action], "confidence": 0.5}},
    )  # fmt: skip
    return VerdictRecord.model_validate({**base, **changes})


def fill(database: Database) -> None:
    """Retrospective entries (made today), live ones (made the evening of their as_of), one late one."""
    today = ledger_at(database, datetime.now(UTC))
    for i, day in enumerate(DAYS):
        for j, symbol in enumerate(NAMES):
            action = ("BUY", "SELL", "HOLD")[(i + j) % 3]
            today.append(record(f"r{i}{j}", symbol, day, action, None))
    for i, day in enumerate(DAYS):
        live = ledger_at(database, datetime.combine(day, time(20), tzinfo=UTC))
        for j, symbol in enumerate(NAMES):
            action = ("BUY", "SELL")[(i + j) % 2]
            live.append(
                record(
                    f"l{i}{j}", symbol, day, action, 0.7 if action == "BUY" else 0.3, mode="full", model="m"
                )
            )
    ledger_at(database, datetime.combine(LATE, time(20), tzinfo=UTC)).append(
        record("late", NAMES[0], LATE, "BUY", None)
    )


@pytest.fixture
def app(settings: Settings, frames: dict[str, pd.DataFrame], database: Database) -> Iterator[AppContainer]:
    fill(database)
    container = AppContainer(settings)
    yield container
    container.close()


def test_forward_returns_equal_an_independent_computation_from_the_bars(
    app: AppContainer, frames: dict[str, pd.DataFrame]
) -> None:
    report = app.evaluation.track.run(TrackConfig(horizons=[5, 20, 60]))
    assert len(report.entries) == 2 * len(DAYS) * len(NAMES) + 1
    checked = 0
    for tracked in report.entries:
        for h in (5, 20, 60):
            expected = independent_forward_return(frames["bars"], tracked.symbol, tracked.as_of, h)
            got = tracked.forward_returns[str(h)]
            assert tracked.matured[str(h)] is (expected is not None)
            if expected is not None:
                assert got == pytest.approx(expected, abs=1e-8), (tracked.symbol, tracked.as_of, h)
                checked += 1
            else:
                assert got is None and tracked.excess_returns[str(h)] is None
    assert checked == 3 * 2 * len(DAYS) * len(NAMES) + 1
    late = next(e for e in report.entries if e.entry_id == "late")
    assert late.matured == {"5": True, "20": False, "60": False}


def test_excess_is_over_the_equal_weight_store_over_the_same_window(app: AppContainer) -> None:
    report = app.evaluation.track.run(TrackConfig(horizons=[5]))
    same_day = [e for e in report.entries if e.as_of == DAYS[0]]
    gap = {round(e.forward_returns["5"] - e.excess_returns["5"], 8) for e in same_day}  # type: ignore[operator]
    assert len(gap) == 1 and gap != {0.0}  # one benchmark return per window


def test_live_and_retrospective_are_scored_apart_and_the_headline_is_live_only(app: AppContainer) -> None:
    report = app.evaluation.track.run(TrackConfig(horizons=[5, 20]))
    assert report.ledger == {"entries": 37, "live": 19, "retrospective": 18}
    assert report.live["entries"] == 19 and report.retrospective["entries"] == 18
    live20 = report.live["all"]["20"]
    assert live20["matured"] == 18 and live20["pending"] == 1  # the late entry has not matured at 20
    assert report.headline.startswith("this desk's 18 matured live verdicts at 20 days: hit ")
    assert "18 retrospective entries are reported apart" in report.headline
    assert set(report.live["by_mode"]) == {"full", "rules"} and set(report.retrospective["by_mode"]) == {
        "rules"
    }
    lo, hi = live20["intervals"]["hit_rate"]
    assert lo <= live20["hit_rate"] <= hi


def test_brier_uses_the_stated_probability_and_leaves_uncalibrated_entries_out(app: AppContainer) -> None:
    report = app.evaluation.track.run(TrackConfig(horizons=[5, 20]))
    live = [e for e in report.entries if not e.retrospective]
    entries = [e for e in live if e.probability_up is not None and e.excess_returns["20"] is not None]
    p = np.array([e.probability_up for e in entries])
    o = np.array([e.excess_returns["20"] > 0 for e in entries], dtype=float)  # type: ignore[operator]
    live20 = report.live["all"]["20"]
    assert live20["calibrated"] == len(entries) > 10
    assert live20["calibrated"] + live20["uncalibrated"] == live20["matured"]
    assert live20["brier"] == pytest.approx(float(np.mean((p - o) ** 2)))
    assert live20["brier_skill"] == pytest.approx(1 - np.mean((p - o) ** 2) / (o.mean() * (1 - o.mean())))
    assert sum(row["count"] for row in live20["reliability"]) == len(entries)
    # the stated probability is P(up over 20 days): at 5 days it is not held to a horizon it never stated
    live5 = report.live["all"]["5"]
    assert (live5["calibrated"], live5["uncalibrated"]) == (0, 19) and live5["brier"] is None
    past20 = report.retrospective["all"]["20"]
    assert past20["calibrated"] == 0 and past20["brier"] is None and past20["hit_rate"] is not None


def test_experts_and_costs_are_reported_per_kind(app: AppContainer) -> None:
    report = app.evaluation.track.run(TrackConfig(horizons=[5]))
    [expert] = report.retrospective["by_expert"]["5"]
    assert expert["expert"] == "technical_analyst" and expert["count"] == 18
    assert report.live["cost"]["verdicts"] == 19 and report.live["cost"]["usd_per_verdict"] is None


def test_a_mode_filter_and_an_empty_ledger(app: AppContainer, database: Database) -> None:
    only = app.evaluation.track.run(TrackConfig(horizons=[5], mode="full"))
    assert {e.mode for e in only.entries} == {"full"} and only.ledger["entries"] == 18
    with database.engine.begin() as conn:
        conn.execute(text("DELETE FROM verdict_ledger"))
    empty = app.evaluation.track.run(TrackConfig())
    assert (
        empty.entries == [] and empty.headline == "no matured live verdicts at 20 days yet (0 live entries)"
    )


@pytest.fixture
def cli(app: AppContainer, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setattr(entry, "_container", app)
    return CliRunner()


def test_track_json_lists_every_entry_with_returns_by_horizon(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(entry.app, ["track", "--json", "--horizons", "5,20"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"config", "ledger", "headline", "entries", "live", "retrospective", "portfolio"} <= set(data)
    first = data["entries"][0]
    assert {
        "as_of",
        "action",
        "probability_up",
        "mode",
        "retrospective",
        "forward_returns",
        "excess_returns",
    } <= set(first)
    assert set(first["forward_returns"]) == {"5", "20"}
    out = tmp_path / "track.html"
    assert cli.invoke(entry.app, ["track", "--out", str(out)]).exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert "Track record" in page and "<svg" in page and "reliability" in page
    if chromium_path() is not None:  # the same report printed (tests/shared/test_exports.py: without it)
        printed = tmp_path / "track.pdf"
        assert cli.invoke(entry.app, ["track", "--out", str(printed)]).exit_code == 0
        assert printed.read_bytes().startswith(b"%PDF")


def test_track_verify_exits_1_naming_the_edited_entry(cli: CliRunner, database: Database) -> None:
    ok = cli.invoke(entry.app, ["track", "verify"])
    assert ok.exit_code == 0 and ok.stdout.startswith("ledger ok: 37 entries")
    with database.engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE verdict_ledger SET verdict_json = replace(verdict_json, 'HOLD', 'BUY') WHERE seq = 3"
            )
        )
    bad = cli.invoke(entry.app, ["track", "verify"])
    assert bad.exit_code == 1 and "seq 3 (entry r02)" in bad.stdout and "edited" in bad.stdout


@pytest.mark.parametrize(
    "args", [["--horizons", "0"], ["--mode", "llm"], ["--out", "t.txt"], ["--benchmark", "NOPE"]]
)
def test_bad_input_is_refused_as_bad_input(cli: CliRunner, args: list[str]) -> None:
    result = cli.invoke(entry.app, ["track", *args])
    assert isinstance(result.exception, StockdeskError) and 400 <= result.exception.http_status < 500


def test_the_real_command_exits_2_with_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stockdesk", "track", "--horizons", "5,x"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--horizons" in lines[0]


def test_rest_track_and_verify(app: AppContainer, database: Database) -> None:
    from tests.api_support import api_client

    with api_client(app) as client:
        track = client.get("/api/v1/track", params={"horizons": "5,20", "mode": "full"})
        assert track.status_code == 200, track.text
        body = track.json()
        assert body["ledger"]["entries"] == 18 and set(body["entries"][0]["forward_returns"]) == {"5", "20"}
        assert client.get("/api/v1/track/verify").json()["ok"] is True
        with database.engine.begin() as conn:
            conn.execute(text("UPDATE verdict_ledger SET action = 'HOLD' WHERE seq = 5"))
        broken = client.get("/api/v1/track/verify")
        assert broken.status_code == 200
        assert broken.json()["ok"] is False and broken.json()["first_bad_seq"] == 5
        assert broken.json()["first_bad_entry_id"] == "r04"
        bad = client.get("/api/v1/track", params={"mode": "llm"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "BAD_REQUEST"  # the schema's enum
        horizons = client.get("/api/v1/track", params={"horizons": "a"})
        assert horizons.status_code == 400 and horizons.json()["error"]["code"] == "BAD_REQUEST"  # pattern
        assert client.get("/api/v1/track", params={"horizons": "0,5"}).status_code == 400
        assert client.get("/api/v1/track", params={"horizons": "250,1"}).status_code == 200
        unknown = client.get("/api/v1/track", params={"benchmark": "688999.SH"})
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "UNKNOWN_SYMBOL"
        schema = client.get("/api/v1/openapi.json").json()["paths"]
        assert {"200", "400", "401", "404"} <= set(schema["/api/v1/track"]["get"]["responses"])


def test_the_headline_alone_is_the_reports_headline(app: AppContainer) -> None:
    service = app.evaluation.track
    assert service.headline() == service.run(TrackConfig()).headline
    assert service.headline(TrackConfig(horizons=[5])) == service.run(TrackConfig(horizons=[5])).headline


def test_each_experts_stance_hit_rate_has_an_interval_around_it(app: AppContainer) -> None:
    report = app.evaluation.track.run(TrackConfig(horizons=[5]))
    [expert] = report.live["by_expert"]["5"]
    low, high = expert["hit_rate_interval"]
    assert expert["directional"] == 19 and low <= expert["hit_rate"] <= high  # the late one matured at 5
