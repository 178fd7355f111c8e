"""The strategy lab over HTTP: start a run from the form, read its iterations, best strategy and code.

A real app and SQLite store (six A-shares, tests/strategy_lab/support.py), a scripted strategist
that answers one usable parameter set and then text without JSON, and the app's job executor.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.dtos import (
    BacktestWindow,
    Fold,
    IterationStatus,
    RunConfig,
    RunStatus,
    RunSummary,
    SplitPlan,
)
from stockdesk.strategy_lab.domain.params import FAMILIES
from stockdesk.strategy_lab.presentation.cli.tables import ROWS, STRATEGY_ONLY
from stockdesk.strategy_lab.presentation.jobs import KIND
from tests.api_support import api_client, wait_for_job
from tests.conftest import scripted_service
from tests.entrypoints.web.lab_support import events, read_events_in_background, slot_taken, spy
from tests.strategy_lab.report_support import SUMMARY, iterations, period
from tests.strategy_lab.support import answer, populate

FORM = {"universe": "", "start": "2023-07-01", "end": "", "iterations": "2", "max_drawdown_limit": "0.5",
        "max_attempts": "1"}  # fmt: skip
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built = AppContainer(settings)
    provider = ScriptedProvider([answer(), "Sorry, I cannot help with that."])
    built.__dict__["llm_service"] = scripted_service(provider, database=built.database)
    populate(built.database)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def start(client: TestClient, form: dict[str, str] = FORM) -> str:
    response = client.post("/strategy/runs", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert re.fullmatch(r"/strategy/runs/[0-9a-f]{32}", location)
    return location.rsplit("/", 1)[1]


def test_a_run_started_from_the_form_shows_iterations_errors_fed_back_and_the_best_strategy(
    client: TestClient,
) -> None:
    form_page = client.get("/strategy")
    assert form_page.status_code == 200
    for label in ('for="st-universe"', 'for="st-start"', 'for="st-iterations"', 'for="st-attempts"'):
        assert label in form_page.text
    assert 'max="50"' in form_page.text  # settings.strategy_max_iterations

    run_id = start(client)
    run = wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")
    assert run["status"] == "completed"
    page = client.get(f"/strategy/runs/{run_id}").text
    assert "sse-connect" not in page and 'data-state="completed"' in page
    rows = re.findall(r'<tr class="iteration" data-status="(\w+)">', page)
    assert rows == [i["status"] for i in run["iterations"]] and rows[1] == "generation_failed"
    fed_back = page[page.index('id="iterations"') : page.index('id="best"')]
    assert "format_error" in fed_back and "no &#34;REASONING:&#34; and no &#34;JSON:&#34; heading" in fed_back
    assert "Sorry, I cannot help with that." in fed_back  # the model's own words, as given
    assert "momentum_period=20" in fed_back  # the first iteration's parameters

    best = page[page.index('id="best"') :]
    assert 'class="chart"' in best and "&#34;id&#34;:&#34;strategy-equity&#34;" in best
    days = run["iterations"][0]["metrics"]["days"]
    assert best.count("&#34;x&#34;:[") == 1 and len(re.findall(r"\d{4}-\d{2}-\d{2}", best)) >= days
    assert re.search(r'<pre id="best-code"><code>[^<]*def ', best)  # the rendered code, escaped
    assert 'id="best-metrics"' in best and "Sharpe" in best and "Average exposure" in best

    listed = client.get("/strategy").text
    assert f'href="/strategy/runs/{run_id}"' in listed and "2 / 2" in listed


def test_the_form_starts_a_walk_forward_run_with_its_capital(client: TestClient) -> None:
    form_page = client.get("/strategy").text
    for label in ('for="st-split"', 'for="st-folds"', 'for="st-capital"', 'value="walk_forward"'):
        assert label in form_page
    run_id = start(client, {**FORM, "start": "2023-01-02", "split_mode": "walk_forward", "folds": "2",
                            "capital": "250000"})  # fmt: skip
    run = wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")
    assert run["config"]["split"] == {"mode": "walk_forward", "in_sample": 0.6, "validation": 0.2, "folds": 2}
    assert run["config"]["execution"]["capital"] == 250000.0
    assert len(run["summary"]["plan"]["folds"]) == 2


def test_a_run_with_no_usable_answer_says_so_honestly(settings: Settings) -> None:
    container = AppContainer(settings)
    provider = ScriptedProvider(["no answer for this schema"])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    client = api_client(container)
    run_id = start(client, {**FORM, "max_attempts": "2"})
    assert wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")["status"] == "completed"
    page = client.get(f"/strategy/runs/{run_id}").text
    assert page.count('data-status="generation_failed"') == 2 and page.count("format_error") == 4
    assert 'id="no-best"' in page and 'class="chart"' not in page


@pytest.mark.parametrize(
    ("changes", "status", "code"),
    [
        ({"universe": "999999.SH"}, 400, "INVALID_UNIVERSE"),
        ({"start": "2024-06-01", "end": "2024-01-01"}, 400, "INVALID_BACKTEST_WINDOW"),
        ({"iterations": "0"}, 400, "BAD_REQUEST"),
        ({"iterations": "4"}, 422, "TOO_MANY_ITERATIONS"),  # over STOCKDESK_STRATEGY_MAX_ITERATIONS=3
        ({"start": "1990-01-02", "end": "2024-06-28"}, 422, "WINDOW_TOO_LONG"),
        ({"split_mode": "sideways"}, 400, "BAD_REQUEST"),
        ({"capital": "0"}, 400, "BAD_REQUEST"),
        ({"start": "2024-03-01"}, 400, "INVALID_BACKTEST_WINDOW"),  # too few days to split
    ],
)
def test_a_refused_run_form_shows_why_with_its_status_and_stores_nothing(
    monkeypatch: pytest.MonkeyPatch, changes: dict[str, str], status: int, code: str
) -> None:
    monkeypatch.setenv("STOCKDESK_STRATEGY_MAX_ITERATIONS", "3")
    container = AppContainer(Settings())
    populate(container.database)
    client = api_client(container)
    response = client.post("/strategy/runs", data={**FORM, **changes}, follow_redirects=False)
    assert response.status_code == status
    assert f'data-code="{code}"' in response.text and 'class="error-box"' in response.text
    assert f'value="{changes.get("iterations", "2")}"' in response.text  # the form comes back filled in
    assert client.get("/api/v1/strategy/runs").json() == [] and container.jobs.active() == []


def test_a_queued_run_is_followed_live_cancelled_then_resumed_to_its_end(
    client: TestClient, container: AppContainer
) -> None:
    with slot_taken(container.jobs, KIND) as release:
        run_id = start(client)
        page = client.get(f"/strategy/runs/{run_id}").text
        assert f'sse-connect="/strategy/runs/{run_id}/events"' in page and 'data-state="queued"' in page
        cancel = f"/jobs/{run_id}/cancel?back=/strategy/runs/{run_id}"  # the general jobs route
        assert f'action="{cancel}"' in page and "/resume" not in page

        first_read = spy(container.strategy_lab.service, "get")
        reader, found = read_events_in_background(client, f"/strategy/runs/{run_id}/events")
        assert first_read.wait(30)
        cancelled = client.post(cancel, follow_redirects=False)
        assert cancelled.status_code == 303 and cancelled.headers["location"] == f"/strategy/runs/{run_id}"
        release.set()
        reader.join(30)

    assert [name for name, _ in found][-1] == "done"
    progress = [data for name, data in found if name == "progress"]
    assert re.search(r'data-state="(queued|cancelling)"', progress[0])  # seen live, over SSE
    stopped = client.get(f"/strategy/runs/{run_id}").text
    assert "sse-connect" not in stopped and 'data-done="0"' in stopped
    resume = f"/jobs/{run_id}/resume?back=/strategy/runs/{run_id}"
    assert f'action="{resume}"' in stopped

    resumed = client.post(resume, follow_redirects=False)
    assert resumed.status_code == 303 and resumed.headers["location"] == f"/strategy/runs/{run_id}"
    assert wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")["status"] == "completed"
    done = client.get(f"/strategy/runs/{run_id}").text
    assert 'data-done="2" data-total="2"' in done and "/resume" not in done
    again = client.post(f"/strategy/runs/{run_id}/resume")  # the old route: 307 to the jobs route
    assert again.status_code == 409 and 'data-code="JOB_DONE"' in again.text


def test_the_events_of_a_finished_run_are_its_iterations_then_done(client: TestClient) -> None:
    run_id = start(client)
    wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")
    found = events(client, f"/strategy/runs/{run_id}/events")
    assert [name for name, _ in found] == ["progress", "done"]
    assert found[0][1].count('<tr class="iteration"') == 2


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/strategy/runs/nope"),
        ("GET", "/strategy/runs/nope/events"),
        ("POST", "/strategy/runs/nope/cancel"),
        ("POST", "/strategy/runs/nope/resume"),
    ],
)
def test_an_unknown_run_is_a_404_page(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert 'data-code="STRATEGY_RUN_NOT_FOUND"' in response.text


def test_the_strategy_lab_speaks_chinese(client: TestClient) -> None:
    assert "策略实验室" in client.get("/strategy", headers=ZH).text
    run_id = start(client)
    wait_for_job(client, f"/api/v1/strategy/runs/{run_id}")
    page = client.get(f"/strategy/runs/{run_id}", headers=ZH).text
    assert "反馈给模型的错误" in page and "未得到可用参数" in page and "生成的策略代码" in page


def test_every_label_the_pages_build_from_a_value_is_in_both_catalogs() -> None:
    """Keys like `strategy.status.<status>` are built at render time: check every value they can take."""
    keys = [
        *(f"strategy.status.{status.value}" for status in IterationStatus),
        *(f"strategy.metric.{name}" for _, name, _ in (*ROWS, *STRATEGY_ONLY)),
    ]
    for lang in ("en", "zh"):
        assert [k for k in keys if k not in catalog(lang)] == [], lang


# A run stored as the loop stores one (report_support's hand-set figures), over the store's last year.
SEEDED_PLAN = SplitPlan(
    mode="fixed",
    folds=[Fold(in_sample=period("2023-07-03", "2024-01-31"), validation=period("2024-02-01", "2024-04-30"))],
    holdout=period("2024-05-01", "2024-06-28"),
)


def seed(container: AppContainer, run_id: str, *, summary: RunSummary | None) -> None:
    window = BacktestWindow(start=SEEDED_PLAN.folds[0].in_sample.start, end=SEEDED_PLAN.holdout.end)
    runs = container.strategy_lab.runs
    runs.create(run_id, RunConfig(iterations=3, window=window))
    for record in iterations(run_id):
        runs.save_iteration(record, champion_number=3)
    if summary is not None:
        runs.save_summary(run_id, summary)
        runs.set_status(run_id, RunStatus.COMPLETED)
    else:
        runs.set_status(run_id, RunStatus.INTERRUPTED, "stopped by the test")


def test_a_finished_run_page_shows_the_splits_trials_deflated_sharpe_pbo_and_families(
    client: TestClient, container: AppContainer
) -> None:
    seed(container, "a" * 32, summary=SUMMARY.model_copy(update={"plan": SEEDED_PLAN}))
    page = client.get(f"/strategy/runs/{'a' * 32}").text
    verdict = page[page.index('id="verdict"') : page.index('id="best"')]
    assert 'data-state="ready"' in verdict
    assert re.findall(r'data-family="(\w+)"', verdict) == ["momentum", "mean_reversion"]
    assert "2 parameter sets backtested (trials)" in verdict  # iterations 1 and 3 were scored
    holdout = re.search(r'<tr data-split="holdout">(.*?)</tr>', verdict, re.DOTALL)
    assert holdout is not None
    # the champion's holdout after costs, without costs and the universe (report_support.SUMMARY)
    figures = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r'<td class="num">(.*?)</td>', holdout.group(1))]
    net, gross, universe = figures[:5], figures[5:8], figures[8:]
    assert net == ["0.41", "4.1%", "-8.0%", "40", "12.5×"] and gross == ["0.58", "5.8%", "-7.0%"]
    assert universe == ["-0.22", "-2.2%", "-12.0%"]
    assert (
        "Deflated Sharpe ratio 0.62: the probability that the champion&#39;s true Sharpe ratio is above zero"
        in verdict
    )
    assert "allowing for the 12 trials" in verdict and "SR0 = 0.0451 per day" in verdict
    assert "Probability of backtest overfitting 0.30: in 30% of the 70 ways" in verdict
    assert "champion is iteration 3 (mean reversion)" in verdict
    iterations_table = page[page.index('id="iterations"') : page.index('id="verdict"')]
    assert "Validation Sharpe" in iterations_table and '<td class="num">1.23</td>' in iterations_table

    best = page[page.index('id="best"') :]
    # the champion replayed over the store, its split periods shaded in the NAV and drawdown panels
    assert 'class="chart"' in best and best.count("&#34;regions&#34;:[{") == 2
    assert "&#34;label&#34;:&#34;holdout&#34;" in best
    assert "&#34;name&#34;:&#34;strategy drawdown&#34;" in best

    zh = client.get(f"/strategy/runs/{'a' * 32}", headers=ZH).text
    for text in ("收缩夏普比率（DSR）0.62", "回测过拟合概率（PBO）0.30", "留出期", "均值回归"):
        assert text in zh, text


def test_an_interrupted_run_page_says_its_summary_is_not_computed_yet(
    client: TestClient, container: AppContainer
) -> None:
    seed(container, "b" * 32, summary=None)
    page = client.get(f"/strategy/runs/{'b' * 32}").text
    verdict = page[page.index('id="verdict"') : page.index('id="best"')]
    assert 'data-state="pending"' in verdict and 'id="no-summary"' in verdict
    assert 'id="splits"' not in verdict and 'id="dsr"' not in verdict
    assert re.findall(r'data-family="(\w+)"', verdict) == ["momentum", "mean_reversion"]


def test_every_family_and_split_label_is_in_both_catalogs() -> None:
    keys = [
        *(f"strategy.family.{family}" for family in FAMILIES),
        *(f"strategy.split.{key}" for key in ("in_sample", "validation", "holdout")),
        *(
            f"strategy.metric.{name}"
            for name in ("sharpe", "annual_return", "max_drawdown", "trades", "turnover")
        ),
    ]
    for lang in ("en", "zh"):
        assert [k for k in keys if k not in catalog(lang)] == [], lang
