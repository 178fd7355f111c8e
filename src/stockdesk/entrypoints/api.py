"""FastAPI application factory: routers under /api/v1, one error mapping, the access policy.

The health middleware answers /health before anything else; the security middleware (Host, body
size, Origin, API keys, token budgets) and inside it the limits middleware (every route's rate and
concurrency, bodies bounded as they are read) wrap every route;
long work runs on the container's job executor, which the app's shutdown cancels so that SIGTERM
stops the server within seconds and unfinished jobs stay resumable.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from stockdesk import __version__
from stockdesk.briefing.presentation.rest import build_briefing_router
from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
from stockdesk.coordinator.presentation.rest.batch_router import build_batch_router
from stockdesk.coordinator.presentation.rest.coordinator_router import build_coordinator_router
from stockdesk.data_engineering.presentation.rest import build_data_router
from stockdesk.data_engineering.presentation.sync_rest import build_sync_router
from stockdesk.debate.presentation.rest.debate_router import build_debate_router
from stockdesk.entrypoints.api_docs import install_api_docs
from stockdesk.entrypoints.batch.launcher import server_batch_launcher
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.health import HealthMiddleware, HealthProbe
from stockdesk.entrypoints.http_errors import error_response
from stockdesk.entrypoints.jobs_rest import build_jobs_router as build_jobs_api
from stockdesk.entrypoints.json_bodies import FiniteJsonMiddleware
from stockdesk.entrypoints.limits import LimitsMiddleware
from stockdesk.entrypoints.openapi import install_openapi
from stockdesk.entrypoints.request_ids import request_id
from stockdesk.entrypoints.scheduling import resume_on_the_server, scheduling_of
from stockdesk.entrypoints.security import SecurityMiddleware, is_ui
from stockdesk.entrypoints.web.app import mount_web
from stockdesk.evaluation.presentation.rest import build_evaluation_router
from stockdesk.evaluation.presentation.track_rest import build_track_router
from stockdesk.judge.presentation.rest.judge_router import build_judge_router
from stockdesk.paper.presentation.rest import build_paper_router
from stockdesk.portfolio.presentation.rest import build_holdings_router, build_watchlist_router
from stockdesk.portfolio.presentation.view_rest import build_portfolio_view_router
from stockdesk.research.presentation.rest.financial_auditor_routes import build_financial_router
from stockdesk.research.presentation.rest.search_expert_routes import (
    build_catalyst_router,
    build_macro_router,
)
from stockdesk.research.presentation.rest.technical_analyst_routes import build_technical_router
from stockdesk.research.presentation.rest.valuation_modeler_routes import build_valuation_router
from stockdesk.scheduling.presentation.rest import build_schedule_router
from stockdesk.shared.access import AccessPolicy
from stockdesk.shared.access.route_limits import ClassLimit, RouteLimits
from stockdesk.shared.config import Settings
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import StockdeskError, TooManyRequestsError
from stockdesk.shared.routes import API_PREFIX
from stockdesk.strategy_lab.presentation.rest.strategy_router import build_strategy_router

logger = logging.getLogger(__name__)
_MISSING = ("missing", "string_too_short")


def _request_id(request: Request) -> str:
    return getattr(request.state, "request_id", None) or uuid.uuid4().hex


def _allowed_methods(request: Request) -> list[str]:
    methods: set[str] = set()
    for route in request.app.routes:
        if route.matches(request.scope)[0] != Match.NONE:
            methods.update(getattr(route, "methods", None) or ())
    return sorted(methods)


def _ui_error(
    request: Request, status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> Response | None:
    """A web UI request gets its error as HTML (the UI's renderer); API requests get None here."""
    render = getattr(request.app.state, "ui_error", None)
    if render is None or not is_ui(request.url.path):
        return None
    response: Response = render(request, status, code, message, details)
    response.headers["X-Request-ID"] = _request_id(request)
    return response


def install_error_handlers(app: FastAPI) -> None:
    @app.middleware("http")
    async def assign_request_id(request: Request, call_next):  # type: ignore[no-untyped-def]
        # the security middleware (outermost) has chosen it already; the header itself is never trusted
        known = getattr(request.state, "request_id", None)
        request.state.request_id = known or request_id(request.headers.get("X-Request-ID"))
        response = await call_next(request)
        response.headers["X-Request-ID"] = request.state.request_id
        return response

    @app.exception_handler(StockdeskError)
    async def stockdesk_error(request: Request, exc: StockdeskError) -> Response:
        rid = _request_id(request)
        if exc.http_status >= 500:
            logger.error("request %s failed: %s", rid, exc.message, exc_info=exc)
        page = _ui_error(request, exc.http_status, exc.code, exc.message, exc.details)
        if page is not None:
            return page
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooManyRequestsError) else None
        extra = {"details": exc.details} if exc.details else {}
        return error_response(exc.http_status, exc.code, exc.message, rid, headers, **extra)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
        code = codes.get(exc.status_code, "HTTP_ERROR")
        page = _ui_error(request, exc.status_code, code, str(exc.detail))
        if page is not None and exc.status_code != 405:
            return page
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method the path has, not only those of the first route
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return error_response(exc.status_code, code, str(exc.detail), _request_id(request), headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        field = ".".join(str(p) for p in first.get("loc", ()) if p not in ("query", "body", "path"))
        message = f"{field}: {first['msg']}" if field else first["msg"]
        code = "BAD_REQUEST"
        if field == "symbol":
            code = "SYMBOL_REQUIRED" if first.get("type") in _MISSING else "INVALID_SYMBOL"
        page = _ui_error(request, 400, code, message, {"field": field or "-"})
        if page is not None:
            return page
        return error_response(400, code, message, _request_id(request))

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        rid = _request_id(request)
        logger.exception("request %s failed with an unexpected error", rid)
        return error_response(500, "INTERNAL_ERROR", "internal error; see the server log", rid)


def health_router(probe: HealthProbe) -> APIRouter:
    """The route as the OpenAPI document shows it; HealthMiddleware answers it before it is reached."""
    router = APIRouter(tags=["health"])

    @router.get("/health")
    def health() -> dict[str, object]:
        """Liveness and what the process is configured to use; never starts the model."""
        return probe.report(probe.check())

    return router


def route_limits(settings: Settings) -> RouteLimits:
    """The route classes' limits from the settings (spending's are the policy's own two)."""
    s = settings
    return RouteLimits(
        cheap=ClassLimit(s.api_cheap_per_minute, s.api_cheap_concurrent),
        page=ClassLimit(s.api_page_per_minute, s.api_page_concurrent),
        sandbox=ClassLimit(s.api_backtest_per_minute, s.api_backtest_concurrent, shared=True),
        upload=ClassLimit(s.api_upload_per_minute, s.api_max_concurrent_uploads, per_process=True),
    )


def default_policy(settings: Settings) -> AccessPolicy:
    """The policy of a server on loopback: keys on the spending routes, loopback Host names only."""
    return AccessPolicy(
        allowed_hosts=tuple(settings.api_allowed_hosts),
        cors_origins=tuple(settings.api_cors_origins),
        max_body_bytes=settings.api_max_body_bytes,
        max_upload_bytes=settings.api_max_upload_bytes,
        rate_per_minute=settings.api_rate_per_minute,
        max_concurrent_per_key=settings.api_max_concurrent_per_key,
        max_tokens_per_request=settings.api_max_tokens_per_request,
        max_tokens_per_day=settings.api_max_tokens_per_day,
        route_limits=route_limits(settings),
    )


def create_app(
    container: AppContainer | None = None,
    policy: AccessPolicy | None = None,
    batches: BatchLauncher | None = None,
) -> FastAPI:
    """`batches`: how batch analyses start (REST and web UI); default the server's, on Ray."""
    container = container or AppContainer()
    settings = container.settings
    policy = policy or default_policy(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if "jobs" in container.__dict__:  # stopping: running jobs end interrupted, resumable
            container.jobs.shutdown()

    app = FastAPI(
        title="stockdesk",
        version=__version__,
        docs_url=None,  # install_api_docs: the same page from vendored files, not a CDN
        openapi_url=f"{API_PREFIX}/openapi.json",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.container = container
    app.state.policy = policy
    app.add_middleware(FiniteJsonMiddleware)  # first added: innermost, inside the request id's
    install_error_handlers(app)
    install_openapi(app)
    install_api_docs(app)
    if policy.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(policy.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "X-API-Key", "Content-Type", "X-Request-ID"],
        )
    app.add_middleware(
        LimitsMiddleware,
        policy=policy,
        shared=lambda: container.access_counters,
        body_idle_seconds=settings.api_body_idle_seconds,
    )
    app.add_middleware(
        SecurityMiddleware,
        policy=policy,
        keys=lambda: container.api_keys,
        sessions=lambda: container.ui_sessions,
        llm=lambda: container.llm_service,
    )
    probe = HealthProbe(settings, lambda: container.database.ensure_schema())
    app.add_middleware(HealthMiddleware, probe=probe, policy=policy)  # outermost: nothing blocks it
    bounds = container.bounds
    jobs = lambda: container.jobs  # noqa: E731
    app.include_router(health_router(probe), prefix=API_PREFIX)
    app.include_router(build_data_router(lambda: container.data), prefix=API_PREFIX)
    app.include_router(build_sync_router(lambda: container.sync_runs, bounds), prefix=API_PREFIX)
    research = container.research
    app.include_router(
        build_valuation_router(
            lambda: research.stock_data,
            lambda: research.valuation_snapshot_builder,
            lambda: research.valuation_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_technical_router(
            lambda: research.stock_data,
            lambda: research.technical_snapshot_builder,
            lambda: research.technical_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_financial_router(
            lambda: research.stock_data,
            lambda: research.financial_snapshot_builder,
            lambda: research.financial_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_macro_router(
            lambda: research.macro_data,
            lambda: research.search_snapshot_builder,
            lambda: research.macro_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_catalyst_router(
            lambda: research.catalyst_data,
            lambda: research.search_snapshot_builder,
            lambda: research.catalyst_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(build_debate_router(lambda: container.debate.service), prefix=API_PREFIX)
    app.include_router(build_briefing_router(lambda: container.briefing.jobs, jobs), prefix=API_PREFIX)
    app.include_router(build_judge_router(lambda: container.judge.service), prefix=API_PREFIX)
    app.include_router(
        build_coordinator_router(lambda: container.coordinator.service, lambda: container.analyses),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_strategy_router(lambda: container.strategy_lab.service, jobs, bounds), prefix=API_PREFIX
    )
    app.include_router(
        build_evaluation_router(lambda: container.evaluation.service, jobs, bounds), prefix=API_PREFIX
    )
    app.include_router(build_track_router(lambda: container.evaluation.track), prefix=API_PREFIX)
    app.include_router(build_paper_router(lambda: container.paper.service), prefix=API_PREFIX)
    app.include_router(build_watchlist_router(lambda: container.portfolio.watchlists), prefix=API_PREFIX)
    app.include_router(build_holdings_router(lambda: container.portfolio.holdings), prefix=API_PREFIX)
    app.include_router(build_schedule_router(lambda: scheduling_of(container), jobs), prefix=API_PREFIX)
    app.include_router(
        build_portfolio_view_router(
            lambda: container.portfolio.view, lambda: container.portfolio.view_jobs, jobs
        ),
        prefix=API_PREFIX,
    )
    resume_on_the_server(container)  # before the jobs routes and pages read the kinds
    app.include_router(
        build_jobs_api(jobs, lambda: SqlTaskStore(container.database), container.job_kinds), prefix=API_PREFIX
    )
    launcher = batches or server_batch_launcher(container)
    app.include_router(build_batch_router(lambda: launcher), prefix=API_PREFIX)
    mount_web(app, container, bounds, jobs, launcher)
    return app
