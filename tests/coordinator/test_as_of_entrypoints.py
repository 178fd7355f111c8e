"""An as-of date outside the symbol's stored bars is refused the same way in every entry point:
`analyze` (exit 2, one line), `batch analyze` (before any job), REST (400 AS_OF_OUT_OF_RANGE,
documented) and the web form (in the page's language); no date at all is the newest stored bar."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application.batch_analysis import JOB_KIND, BatchAnalysisConfig
from stockdesk.shared.config import Settings
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import BadRequestException
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline
from tests.entrypoints.test_cli import stockdesk
from tests.entrypoints.web.page_language_support import unmarked

FIRST = pd.bdate_range(end=AS_OF, periods=300)[0].date().isoformat()  # populate_store's first bar
STORED = f"the stored bars ({FIRST}..{AS_OF.isoformat()})"
AFTER = f"{SYMBOL}: as-of 2030-01-01 is after {STORED}; sync or choose a date in that range"
BEFORE = f"{SYMBOL}: as-of 1990-01-01 is before {STORED}; choose a date in that range"
URL = "/api/v1/coordinator/research"


def test_analyze_refuses_dates_outside_the_stored_bars_with_one_line_and_exit_2(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    for day, line in (("2030-01-01", AFTER), ("1990-01-01", BEFORE)):
        result = stockdesk("analyze", SYMBOL, "--as-of", day, "--rules-only")
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines() == [f"error: {line}"]  # no live view before it
    assert container.coordinator.service.list().total == 0  # no session was started


def test_analyze_without_a_date_says_it_took_the_newest_stored_bar(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    container, router, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    result = CliRunner().invoke(
        entry.app, ["analyze", SYMBOL, "--rules-only", "--experts", "technical,financial"]
    )
    assert result.exit_code == 0, result.output
    assert f"no --as-of: analysing as of {AS_OF.isoformat()}, the newest stored bar" in result.output
    session = container.coordinator.service.list().items[0]
    assert session.as_of == AS_OF and router.calls == []
    assert "As of the newest stored bar: no date was asked." in result.output  # the report says it too


def test_batch_analyze_refuses_before_any_job(settings: Settings, tmp_path: Path) -> None:
    container, _, _ = pipeline(settings)
    config = BatchAnalysisConfig(symbols=[SYMBOL], as_of=date(2030, 1, 1), out_dir=str(tmp_path.resolve()))
    with pytest.raises(BadRequestException) as caught:
        container.batch_analysis.open(config)
    assert caught.value.code == "AS_OF_OUT_OF_RANGE" and caught.value.message == AFTER
    assert SqlTaskStore(container.database).list_jobs(JOB_KIND) == []  # no job, no task
    inside = config.model_copy(update={"as_of": AS_OF})
    assert container.batch_analysis.open(inside)[1] == 1  # the same batch inside the range opens


def test_batch_analyze_cli_exits_before_any_engine(
    cli_app: typer.Typer, settings: Settings, tmp_path: Path
) -> None:
    pipeline(settings)
    out = tmp_path / "runs"
    result = CliRunner().invoke(
        cli_app, ["batch", "analyze", "--symbols", SYMBOL, "--as-of", "1990-01-01", "--out", str(out)]
    )
    assert isinstance(result.exception, BadRequestException) and result.exception.message == BEFORE
    assert not (out / "index.html").exists()


def test_rest_answers_400_as_of_out_of_range_and_documents_it(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    for path in (URL, f"{URL}/jobs"):
        refused = client.post(
            path, json={"symbol": SYMBOL, "as_of": "2030-01-01", "experts": ["technical_analyst"]}
        )
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert error["code"] == "AS_OF_OUT_OF_RANGE" and error["message"] == AFTER
        assert error["details"]["side"] == "after" and error["details"]["last"] == AS_OF.isoformat()
    assert client.get(f"{URL}/sessions").json()["total"] == 0
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for path in (URL, f"{URL}/jobs", "/api/v1/batch/analyses"):
        assert "AS_OF_OUT_OF_RANGE" in paths[path]["post"]["responses"]["400"]["description"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", f"{SYMBOL}: as-of 2030-01-01 is after the stored bars ({FIRST}..{AS_OF.isoformat()})"),
        ("zh", f"{SYMBOL}：分析日期 2030-01-01 晚于已存储的日线（{FIRST}..{AS_OF.isoformat()}）"),
    ],
)
def test_the_web_form_refuses_in_the_pages_language(settings: Settings, lang: str, words: str) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    client.cookies.set("lang", lang)
    form = {"symbol": SYMBOL, "as_of": "2030-01-01", "experts": ["technical_analyst"], "debate": "bull-bear"}
    refused = client.post("/analyses", data=form, follow_redirects=False)
    assert refused.status_code == 400
    assert 'data-code="AS_OF_OUT_OF_RANGE"' in refused.text and words in unmarked(refused.text)
    assert container.analyses.active() == [] and container.coordinator.service.list().total == 0
