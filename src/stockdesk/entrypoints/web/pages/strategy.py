"""The strategy lab: start a run and list runs, follow a run's iterations live, cancel or resume it;
backtest one parameter set of a family (no model) and see its figures and NAV chart.

Starting goes through `strategy_lab.presentation.jobs` and a backtest through
`strategy_lab.presentation.backtests` (what the REST routes call); the run page's
Cancel and Resume post to the general jobs routes (`pages/jobs.py`). The run page reads the stored
run (every iteration is stored as it ends) and the executor, so a reload or a second tab shows the
same state. The best strategy's equity curve is the stored
parameters replayed by the service, drawn from a ChartSpec.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import Translator, pick_language
from stockdesk.entrypoints.web.pages.backtest_view import (
    FAMILY_FIELDS,
    BacktestForm,
    backtest_view,
    refusal_lines,
)
from stockdesk.entrypoints.web.pages.jobs import moved_to_jobs
from stockdesk.entrypoints.web.pages.strategy_view import (
    RunForm,
    RunView,
    best_record,
    metrics_rows,
    run_view,
)
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events
from stockdesk.shared.wording import say
from stockdesk.strategy_lab.application.charts import equity_chart
from stockdesk.strategy_lab.application.service import StrategyLabService
from stockdesk.strategy_lab.presentation.backtests import checked_backtest
from stockdesk.strategy_lab.presentation.jobs import launch_strategy_run

INDEX = "strategy/index.html.j2"
RUN = "strategy/run.html.j2"
BACKTEST = "strategy/backtest.html.j2"
LIST_SIZE = 20


def build_strategy_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def service() -> StrategyLabService:
        return deps.container.strategy_lab.service

    def view(run_id: str) -> RunView:
        live = deps.jobs().state_of(run_id)  # first: a run ending in between then reads as ended
        return run_view(service().get(run_id), live)

    def index(request: Request, form: RunForm, error: StockdeskError | None = None) -> Response:
        live = deps.jobs().states()
        runs = [run_view(run, live.get(run.id)) for run in service().list(LIST_SIZE)]
        context = {
            "form": form,
            "error": error,
            "runs": runs,
            "max_iterations": deps.bounds.max_iterations,
            "bt_form": BacktestForm(),
            "families": FAMILY_FIELDS,
        }
        return deps.pages.render(request, INDEX, context, status_code=error.http_status if error else 200)

    @router.get("/strategy")
    def strategy(request: Request) -> Response:
        return index(request, RunForm())

    @router.post("/strategy/runs")
    def start(
        request: Request,
        universe: str = Form(""),
        start: str = Form(""),
        end: str = Form(""),
        iterations: str = Form("5"),
        max_drawdown_limit: str = Form("0.5"),
        max_attempts: str = Form("3"),
        split_mode: str = Form("fixed"),
        folds: str = Form("3"),
        capital: str = Form("1000000"),
    ) -> Response:
        """Create and submit the run as REST does, then its page; a refused form comes back with why."""
        form = RunForm(
            universe, start, end, iterations, max_drawdown_limit, max_attempts, split_mode, folds, capital
        )
        try:
            run = launch_strategy_run(service(), deps.jobs(), deps.bounds, form.body().config())
        except StockdeskError as exc:
            return index(request, form, exc)
        return RedirectResponse(f"/strategy/runs/{run.id}", status_code=303)

    @router.post("/strategy/backtest")
    async def backtest(request: Request) -> Response:
        """Score the form's parameter set as REST does (off the event loop), then its figures and
        NAV chart under the form; a refused form comes back with why, in the page's language."""
        form = BacktestForm.read(await request.form())
        t = Translator(pick_language(request))
        context: dict[str, Any] = {
            "bt_form": form,
            "families": FAMILY_FIELDS,
            "result": None,
            "refusal": [],
        }
        try:
            body = form.body()
            result = await run_in_threadpool(checked_backtest, service(), deps.bounds, body)
        except StockdeskError as exc:
            context |= {"error": exc, "refusal": refusal_lines(exc, form, t)}
            return deps.pages.render(request, BACKTEST, context, status_code=exc.http_status)
        context |= {"error": None, "result": backtest_view(result, t("strategy.backtest.chart_title"))}
        return deps.pages.render(request, BACKTEST, context)

    @router.get("/strategy/runs/{run_id}")
    def run_page(request: Request, run_id: str) -> Response:
        """Iterations (live over SSE while the run is going), then the best strategy and its curve."""
        return deps.pages.render(request, RUN, _run_context(deps, run_id))

    @router.get("/strategy/runs/{run_id}/events")
    def events(request: Request, run_id: str) -> StreamingResponse:
        """The iterations panel as an HTML fragment per change (`progress`), then `done`."""
        view(run_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: view(run_id),
            lambda run: deps.pages.render_text(request, RUN, "progress", {"run": run}),
            lambda run: not run.live,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.post("/strategy/runs/{run_id}/cancel")
    def cancel(run_id: str) -> Response:
        """Moved to the jobs route (307), which comes back to this run's page."""
        return moved_to_jobs(run_id, "cancel", f"/strategy/runs/{run_id}")

    @router.post("/strategy/runs/{run_id}/resume")
    def resume(run_id: str) -> Response:
        """Moved to the jobs route (307), which comes back to this run's page."""
        return moved_to_jobs(run_id, "resume", f"/strategy/runs/{run_id}")

    return router


def _run_context(deps: WebDeps, run_id: str) -> dict[str, Any]:
    """The run page: the run, its best iteration's figures and, once it stopped, its equity chart
    re-scored from the stored parameters (the stored figures stay when the chart cannot be made)."""
    service = deps.container.strategy_lab.service
    live = deps.jobs().state_of(run_id)  # first: a run ending in between then reads as ended
    stored = service.get(run_id)
    run = run_view(stored, live)
    context: dict[str, Any] = {
        "run": run,
        "best": None,
        "metrics": [],
        "equity": None,
        "chart_error": None,
    }
    record = best_record(stored)
    if record is not None:
        context.update(best=record, metrics=metrics_rows(record))
        if not run.live:
            try:
                replayed = service.replay(run_id)
                number = record.number
                title = lambda lang: say("chart.strategy.iteration_title", lang, n=number)  # noqa: E731
                plan = stored.summary.plan if stored.summary else None  # shades the split periods
                context["equity"] = equity_chart(replayed, title, plan).model_dump(mode="json")
            except StockdeskError as exc:  # the page still shows the stored figures and code
                context["chart_error"] = exc.message
    return context
