"""FastAPI application factory: routers under /api/v1 and one error mapping for every route."""

from __future__ import annotations

import logging
import uuid

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from stockdesk import __version__
from stockdesk.coordinator.presentation.rest.coordinator_router import build_coordinator_router
from stockdesk.data_engineering.presentation.rest import build_data_router
from stockdesk.debate.presentation.rest.briefing_router import build_briefing_router
from stockdesk.debate.presentation.rest.debate_router import build_debate_router
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.presentation.rest import build_evaluation_router
from stockdesk.judge.presentation.rest.judge_router import build_judge_router
from stockdesk.research.presentation.rest.financial_auditor_routes import build_financial_router
from stockdesk.research.presentation.rest.search_expert_routes import (
    build_catalyst_router,
    build_macro_router,
)
from stockdesk.research.presentation.rest.technical_analyst_routes import build_technical_router
from stockdesk.research.presentation.rest.valuation_modeler_routes import build_valuation_router
from stockdesk.shared.errors import StockdeskError
from stockdesk.strategy_lab.presentation.rest.strategy_router import build_strategy_router

logger = logging.getLogger(__name__)
API_PREFIX = "/api/v1"


def _error(status: int, code: str, message: str, request_id: str, **extra: object) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "request_id": request_id, **extra}}
    return JSONResponse(status_code=status, content=body, headers={"X-Request-ID": request_id})


def _request_id(request: Request) -> str:
    return getattr(request.state, "request_id", None) or uuid.uuid4().hex


def install_error_handlers(app: FastAPI) -> None:
    @app.middleware("http")
    async def assign_request_id(request: Request, call_next):  # type: ignore[no-untyped-def]
        request.state.request_id = request.headers.get("X-Request-ID") or uuid.uuid4().hex
        response = await call_next(request)
        response.headers["X-Request-ID"] = request.state.request_id
        return response

    @app.exception_handler(StockdeskError)
    async def stockdesk_error(request: Request, exc: StockdeskError) -> JSONResponse:
        rid = _request_id(request)
        if exc.http_status >= 500:
            logger.error("request %s failed: %s", rid, exc.message)
        return _error(
            exc.http_status, exc.code, exc.message, rid, **({"details": exc.details} if exc.details else {})
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
        return _error(
            exc.status_code, codes.get(exc.status_code, "HTTP_ERROR"), str(exc.detail), _request_id(request)
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        field = ".".join(str(p) for p in first.get("loc", ()) if p not in ("query", "body", "path"))
        message = f"{field}: {first['msg']}" if field else first["msg"]
        return _error(400, "BAD_REQUEST", message, _request_id(request))

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        rid = _request_id(request)
        logger.exception("request %s failed with an unexpected error", rid)
        return _error(500, "INTERNAL_ERROR", "internal error; see the server log", rid)


def health_router(container: AppContainer) -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/health")
    def health() -> dict[str, object]:
        """Liveness and what the process is configured to use; never starts the model."""
        try:
            container.database.ensure_schema()
            database = "ok"
        except StockdeskError as exc:
            database = f"error: {exc.message}"
        return {
            "status": "ok" if database == "ok" else "degraded",
            "version": __version__,
            "database": database,
            "llm_aliases": [a.name for a in container.settings.resolved_aliases()],
        }

    return router


def create_app(container: AppContainer | None = None) -> FastAPI:
    container = container or AppContainer()
    app = FastAPI(
        title="stockdesk",
        version=__version__,
        docs_url=f"{API_PREFIX}/docs",
        openapi_url=f"{API_PREFIX}/openapi.json",
        redoc_url=None,
    )
    app.state.container = container
    install_error_handlers(app)
    app.include_router(health_router(container), prefix=API_PREFIX)
    app.include_router(build_data_router(lambda: container.data), prefix=API_PREFIX)
    research = container.research
    app.include_router(
        build_valuation_router(
            lambda: research.valuation_data,
            lambda: research.valuation_snapshot_builder,
            lambda: research.valuation_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_technical_router(
            lambda: research.technical_data,
            lambda: research.technical_snapshot_builder,
            lambda: research.technical_agent,
        ),
        prefix=API_PREFIX,
    )
    app.include_router(
        build_financial_router(
            lambda: research.financial_data,
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
    app.include_router(build_briefing_router(lambda: container.debate.briefing_jobs), prefix=API_PREFIX)
    app.include_router(build_judge_router(lambda: container.judge.service), prefix=API_PREFIX)
    app.include_router(build_coordinator_router(lambda: container.coordinator.service), prefix=API_PREFIX)
    app.include_router(build_strategy_router(lambda: container.strategy_lab.service), prefix=API_PREFIX)
    app.include_router(build_evaluation_router(lambda: container.evaluation.service), prefix=API_PREFIX)
    return app
