"""`stockdesk portfolio` and GET /api/v1/portfolio over the real rules path (the coordinator's
rules-only verdicts through `day_verdicts`) on the hand-built market: the JSON, HTML and PDF files,
the table, and each refusal with its own code (one line and exit 2 on the command line)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.portfolio.view_market import AS_OF, SYMBOLS, populate


@pytest.fixture
def app(settings: Settings) -> Iterator[AppContainer]:
    container = AppContainer(settings)
    populate(container.database)
    container.portfolio.watchlists.add("desk", list(SYMBOLS))
    yield container
    container.close()


def stockdesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_the_command_writes_json_and_html_and_prints_the_table(app: AppContainer, tmp_path: Path) -> None:
    day = AS_OF.isoformat()
    done = stockdesk("portfolio", "--watchlist", "desk", "--as-of", day, "--out", str(tmp_path / "p.json"))
    assert done.returncode == 0, done.stderr
    view = json.loads((tmp_path / "p.json").read_text())
    assert [a["symbol"] for a in view["allocations"]] == list(SYMBOLS)
    assert all(a["action"] in ("BUY", "SELL", "HOLD") for a in view["allocations"])
    assert view["as_of"] == day and view["book_value"] == 1_000_000
    assert 0 <= sum(a["target_weight"] for a in view["allocations"]) <= 1
    assert view["target"]["cash_weight"] == pytest.approx(
        1 - sum(a["target_weight"] for a in view["allocations"])
    )
    html = stockdesk("portfolio", "--watchlist", "desk", "--as-of", day, "--out", str(tmp_path / "p.html"))
    assert html.returncode == 0, html.stderr
    page = (tmp_path / "p.html").read_text()
    assert "<svg" in page and 'id="allocation"' in page and 'id="risk"' in page
    assert all(s in page for s in SYMBOLS)
    table = stockdesk("portfolio", "--watchlist", "desk", "--as-of", day, "--lang", "zh")
    assert table.returncode == 0, table.stderr
    assert "组合视图" in table.stdout and "当前组合与目标组合的风险" in table.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--as-of", "2023-12-01"], "name a watchlist or the holdings"),
        (["--watchlist", "nope", "--as-of", "2023-12-01"], "no watchlist named 'nope'"),
        (["--holdings", "--as-of", "2023-12-01"], "no valued holdings"),
        (["--watchlist", "desk", "--as-of", "2023-13-01"], "is not a date"),
        (["--watchlist", "desk", "--as-of", "2023-12-01", "--capital", "0"], "capital must be > 0"),
        (["--watchlist", "desk", "--as-of", "2023-12-01", "--out", "p.xlsx"], "xlsx"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(app: AppContainer, args: list[str], words: str) -> None:
    result = stockdesk("portfolio", *args)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert words in lines[0] or words in result.stderr


def test_the_rest_route_answers_the_view_and_its_errors(app: AppContainer) -> None:
    client: TestClient = api_client(app)
    day = AS_OF.isoformat()
    ok = client.get("/api/v1/portfolio", params={"watchlist": "desk", "as_of": day, "capital": 500_000})
    assert ok.status_code == 200, ok.text
    body = ok.json()
    assert body["book_value"] == 500_000 and len(body["allocations"]) == len(SYMBOLS)
    html = client.get(
        "/api/v1/portfolio", params={"watchlist": "desk", "as_of": day, "format": "html", "lang": "zh"}
    )
    assert html.status_code == 200 and "组合视图" in html.text
    for params, status, code in [
        ({"as_of": day}, 400, "PORTFOLIO_SOURCE"),
        ({"as_of": day, "watchlist": "desk", "holdings": "true"}, 400, "PORTFOLIO_SOURCE"),
        ({"as_of": day, "holdings": "true"}, 400, "PORTFOLIO_EMPTY"),
        ({"as_of": day, "watchlist": "nope"}, 404, "WATCHLIST_NOT_FOUND"),
        ({"as_of": "2000-01-03", "watchlist": "desk"}, 400, "PORTFOLIO_EMPTY"),
    ]:
        answer = client.get("/api/v1/portfolio", params=params)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), params
    for params in ({"as_of": "0", "watchlist": "desk"}, {"as_of": day, "watchlist": "desk", "capital": -1}):
        refused = client.get("/api/v1/portfolio", params=params)
        assert refused.status_code == 400 and refused.json()["error"]["code"] != "PORTFOLIO_SOURCE", params
    schema = client.get("/api/v1/openapi.json").json()["paths"]["/api/v1/portfolio"]["get"]
    assert {"400", "404"} <= set(schema["responses"])
    assert "PORTFOLIO_SOURCE" in schema["responses"]["400"]["description"]
