"""One malformed stored iteration (written by hand with SQL) made `GET /api/v1/strategy/runs` and the
/strategy page answer 500. Now the row is left out, named in the run's `unreadable` and on the pages,
and logged once; the rest of the run and the other runs read as before."""

from __future__ import annotations

import logging
import uuid

import pytest
from sqlalchemy import text

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.dtos import BacktestWindow, RunConfig, RunStatus
from tests.api_support import api_client
from tests.strategy_lab.report_support import SUMMARY, iterations, period
from tests.strategy_lab.support import populate

REPOSITORY_LOG = "stockdesk.strategy_lab.infrastructure.persistence.run_repository"
BREAKS = {  # one stored iteration made unreadable, each way a hand or an old version could
    "json": 'params = \'{"strategy_type": "momentum", \'',
    "status": "status = 'exploded'",
    "params": 'params = \'{"strategy_type": "astrology"}\'',
    "timestamp": "started_at = 'yesterday'",
    "number-as-text": "number = 'two'",
}


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built = AppContainer(settings)
    populate(built.database)
    return built


def seed(container: AppContainer) -> str:
    run_id = uuid.uuid4().hex
    runs = container.strategy_lab.runs
    window = BacktestWindow(
        start=period("2023-07-03", "2024-01-31").start, end=period("2024-05-01", "2024-06-28").end
    )
    runs.create(run_id, RunConfig(iterations=3, window=window))
    for record in iterations(run_id):
        runs.save_iteration(record, champion_number=3)
    runs.save_summary(run_id, SUMMARY)
    runs.set_status(run_id, RunStatus.COMPLETED)
    return run_id


def sql(container: AppContainer, statement: str, **values: object) -> None:
    with container.database.engine.begin() as connection:
        connection.execute(text(statement), values)


@pytest.mark.parametrize("change", BREAKS.values(), ids=BREAKS.keys())
def test_a_malformed_iteration_is_left_out_named_and_logged_once(
    container: AppContainer, change: str, caplog: pytest.LogCaptureFixture
) -> None:
    good, bad = seed(container), seed(container)
    row_id = (
        container.database.engine.connect()
        .execute(text("SELECT id FROM strategy_iterations WHERE run_id = :run AND number = 2"), {"run": bad})
        .scalar_one()
    )
    sql(container, f"UPDATE strategy_iterations SET {change} WHERE id = :id", id=row_id)
    client = api_client(container)
    caplog.set_level(logging.WARNING, logger=REPOSITORY_LOG)

    listed = client.get("/api/v1/strategy/runs")
    assert listed.status_code == 200, listed.text
    runs = {run["id"]: run for run in listed.json()}
    assert set(runs) == {good, bad} and runs[good]["unreadable"] == []
    assert [i["number"] for i in runs[good]["iterations"]] == [1, 2, 3]
    assert [i["number"] for i in runs[bad]["iterations"]] == [1, 3]  # the others, champion #3 too
    [named] = runs[bad]["unreadable"]
    assert named["table"] == "strategy_iterations" and named["row_id"] == str(row_id) and named["error"]
    assert named["number"] == (None if "number" in change else 2)
    assert runs[bad]["champion"]["number"] == 3
    one = client.get(f"/api/v1/strategy/runs/{bad}")
    assert one.status_code == 200 and one.json()["unreadable"] == runs[bad]["unreadable"]

    index = client.get("/strategy")
    assert index.status_code == 200 and index.text.count("1 unreadable stored row(s) left out") == 1
    page = client.get(f"/strategy/runs/{bad}")
    assert page.status_code == 200, page.text
    said = (
        "Iteration 2 could not be read" if named["number"] else "A stored row of this run could not be read"
    )
    assert said in page.text and f"row {row_id}" in page.text
    assert "第" in client.get(f"/strategy/runs/{bad}", headers={"Accept-Language": "zh"}).text

    logged = [r.getMessage() for r in caplog.records if r.name == REPOSITORY_LOG]
    assert len(logged) == 1 and f"strategy_iterations row {row_id} is left out" in logged[0]


def test_a_run_whose_own_row_is_malformed_is_left_out_of_the_list(container: AppContainer) -> None:
    good, bad = seed(container), seed(container)
    sql(container, "UPDATE strategy_runs SET config = '{\"iterations\": 0}' WHERE id = :id", id=bad)
    listed = api_client(container).get("/api/v1/strategy/runs")
    assert listed.status_code == 200 and [run["id"] for run in listed.json()] == [good]
