"""Stored strategy code is shown, never run (issue 17): `strategy show` re-renders from the stored params.

The iterations' code is replaced in the database with code that creates a file when run; `show` must
still draw the champion's curve, with the numbers its parameters give, and no file may appear.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import update
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams
from stockdesk.strategy_lab.infrastructure.persistence.models import StrategyIterationRow
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate
from tests.conftest import scripted_service
from tests.strategy_lab.support import answer, populate

FROM = ("--from", "2023-07-01")


@pytest.fixture
def container(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> AppContainer:
    container = AppContainer(settings)
    provider = ScriptedProvider([answer(), answer(n_stocks=10)])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    monkeypatch.setattr(entry, "_container", container)
    return container


def strategy(*args: str):
    return CliRunner().invoke(entry.app, ["strategy", *args], env={"COLUMNS": "200"})


def tampered(params: MomentumStrategyParams, target: Path) -> str:
    """The champion's module, plus one line that writes `target` when the module is run."""
    return MomentumTemplate().render(params) + f"\npd.DataFrame({{'a': [1]}}).to_json({str(target)!r})\n"


def test_show_re_renders_from_the_params_and_never_runs_the_stored_code(
    container: AppContainer, tmp_path: Path
) -> None:
    ran = strategy("run", "--iterations", "2", *FROM, "--json")
    assert ran.exit_code == 0, ran.output
    run = json.loads(ran.stdout)
    champion = run["champion"]
    params = MomentumStrategyParams(**champion["params"])

    control = tmp_path / "control.json"  # the tampered code is live: run directly, it writes its file
    subprocess.run([sys.executable, "-c", tampered(params, control)], check=True, cwd=tmp_path)
    assert control.exists()

    target = tmp_path / "pwned.json"
    with container.database.session() as session:
        session.execute(
            update(StrategyIterationRow)
            .where(StrategyIterationRow.run_id == run["id"])
            .values(code=tampered(params, target))
        )

    png = tmp_path / "curve.png"
    shown = strategy("show", run["id"], "--png", str(png))
    assert shown.exit_code == 0, shown.output
    assert f"champion: iteration {champion['number']}" in shown.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not target.exists()
    report = tmp_path / "run.html"
    shown = strategy("show", run["id"], "--out", str(report))
    assert shown.exit_code == 0, shown.output
    assert "to_json" in report.read_text(encoding="utf-8")  # the stored code is shown, escaped ...
    assert not target.exists()  # ... and never run

    service = container.strategy_lab.service
    replayed = service.replay(run["id"])
    record = service.get(run["id"])
    # the params' numbers: the same as a fresh backtest of the stored params over the run's window
    fresh = service.backtest(record.champion.params, record.config.window, record.config.execution)
    assert replayed.metrics == fresh.metrics and replayed.params.model_dump() == champion["params"]
    assert not target.exists()

    stored = json.loads(strategy("show", run["id"], "--json").stdout)  # the stored text is still shown
    assert all("to_json" in i["code"] for i in stored["iterations"] if i["code"])
