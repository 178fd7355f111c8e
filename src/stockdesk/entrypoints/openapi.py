"""The OpenAPI document tells the truth: every status code a route can answer is declared.

FastAPI declares 422 for validation, but our validation errors are 400; and the security layer
answers 400/401/403/408/413/429 before any route runs. One table here adds, per route, the errors its
application service raises (404 unknown things, 409 not finished, 422 bounds or unparsable model
output, 503 no model reachable), so clients and the fuzzer can rely on the schema.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from stockdesk.entrypoints.security import PUBLIC_PATHS, STATE_CHANGING, is_spending

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "request_id"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "request_id": {"type": "string"},
                "details": {"type": "object"},
            },
        }
    },
}
DESCRIPTIONS = {
    400: "Bad request: invalid parameters or body (NaN or Infinity in it: NON_FINITE_NUMBER), or a Host "
    "that is not served (HOST_NOT_ALLOWED)",
    401: "API key missing (API_KEY_REQUIRED) or unknown/revoked (API_KEY_INVALID)",
    403: "Cross-site request refused (ORIGIN_FORBIDDEN)",
    404: "Not found (unknown symbol, session, job or run)",
    408: "The request body stopped arriving (BODY_STALLED)",
    409: "Not in a state that allows this yet",
    413: "Request body too large (BODY_TOO_LARGE)",
    422: "Over a configured bound, or the model's answer could not be parsed",
    429: "Rate (RATE_LIMITED), concurrency (TOO_MANY_CONCURRENT), token budget or job queue limit "
    "reached; see Retry-After",
    503: "No LLM or data provider could be reached, or no Chromium to print a PDF (PDF_UNAVAILABLE)",
}
# Errors the routes' services raise, by (method, path pattern); `{x}` matches one path segment.
ROUTE_ERRORS: dict[tuple[str, str], tuple[int, ...]] = {
    ("GET", "/api/v1/stocks/{x}"): (404,),
    ("GET", "/api/v1/stocks/{x}/bars"): (404,),
    ("GET", "/api/v1/stocks/{x}/valuations"): (404,),
    ("GET", "/api/v1/stocks/{x}/financials"): (404,),
    ("GET", "/api/v1/stocks/{x}/bars_5m"): (404,),
    ("POST", "/api/v1/data/sync"): (422, 429),
    ("GET", "/api/v1/data/sync/{x}"): (404,),
    ("GET", "/api/v1/research/{x}"): (404, 422, 503),
    ("POST", "/api/v1/coordinator/research"): (404, 422, 503),
    ("GET", "/api/v1/coordinator/research/sessions/{x}"): (404,),
    ("POST", "/api/v1/coordinator/research/jobs"): (404, 429),
    ("GET", "/api/v1/coordinator/research/jobs/{x}"): (404,),
    ("POST", "/api/v1/coordinator/research/jobs/{x}/cancel"): (404,),
    ("POST", "/api/v1/coordinator/research/jobs/{x}/retry"): (404, 429),
    ("GET", "/api/v1/coordinator/research/jobs/{x}/events"): (404,),
    ("POST", "/api/v1/coordinator/research/{x}/retry"): (404, 409, 422, 503),
    ("POST", "/api/v1/debate/run"): (404, 422, 503),
    ("POST", "/api/v1/judge/verdict"): (404, 422, 503),
    ("POST", "/api/v1/strategy/backtest"): (404, 422),
    ("POST", "/api/v1/strategy/runs"): (404, 422),
    ("GET", "/api/v1/strategy/runs/{x}"): (404,),
    ("POST", "/api/v1/strategy/runs/{x}/cancel"): (404,),
    ("POST", "/api/v1/evaluations"): (404, 422),
    ("GET", "/api/v1/evaluations/{x}"): (404,),
    ("GET", "/api/v1/evaluations/{x}/report"): (404, 409, 503),
    ("POST", "/api/v1/evaluations/{x}/cancel"): (404,),
    ("GET", "/api/v1/track"): (404, 503),
    ("GET", "/api/v1/paper/books/{x}"): (404, 503),
    ("POST", "/api/v1/paper/books"): (404, 409),
    ("POST", "/api/v1/paper/books/{x}/close"): (404,),
    ("POST", "/api/v1/briefings"): (404,),
    ("GET", "/api/v1/briefings/{x}"): (404,),
    ("GET", "/api/v1/briefings/{x}/script"): (404, 409),
    ("POST", "/api/v1/briefings/{x}/cancel"): (404,),
    ("POST", "/api/v1/jobs/{x}/cancel"): (404,),
    ("POST", "/api/v1/jobs/{x}/resume"): (404, 409, 422),
    ("GET", "/api/v1/jobs/{x}"): (404,),
    ("GET", "/api/v1/jobs/{x}/events"): (404,),
    ("POST", "/api/v1/batch/analyses"): (404, 409, 422),
    ("GET", "/api/v1/batch/analyses/{x}"): (404,),
    ("GET", "/api/v1/batch/analyses/{x}/events"): (404,),
    ("GET", "/api/v1/batch/analyses/{x}/index"): (404,),
    ("GET", "/api/v1/batch/analyses/{x}/reports/{x}"): (404,),
    ("GET", "/api/v1/watchlists/{x}"): (404,),
    ("PUT", "/api/v1/watchlists/{x}"): (404,),
    ("DELETE", "/api/v1/watchlists/{x}"): (404,),
    ("POST", "/api/v1/watchlists/{x}/symbols"): (404,),
    ("DELETE", "/api/v1/watchlists/{x}/symbols/{x}"): (404,),
    ("PUT", "/api/v1/holdings/{x}"): (404,),
    ("DELETE", "/api/v1/holdings/{x}"): (404,),
    ("POST", "/api/v1/schedules"): (409,),
    ("DELETE", "/api/v1/schedules/{x}"): (404,),
    ("POST", "/api/v1/schedules/{x}/run"): (404, 409),
    ("POST", "/api/v1/portfolio/jobs"): (404,),
    ("GET", "/api/v1/portfolio/jobs/{x}"): (404,),
    ("GET", "/api/v1/portfolio/jobs/{x}/report"): (404, 409, 503),
}
AS_OF_OUT_OF_RANGE = (
    "; AS_OF_OUT_OF_RANGE: as_of before the symbol's first stored daily bar, more than 5 trading days "
    "after its newest, or no bar stored at all (details: symbol, as_of, first, last, side)"
)
# Routes whose 400 also has a code of its own, added to the 400 description.
ROUTE_400: dict[tuple[str, str], str] = {
    ("POST", "/api/v1/coordinator/research"): AS_OF_OUT_OF_RANGE,
    ("POST", "/api/v1/coordinator/research/jobs"): AS_OF_OUT_OF_RANGE,
    ("POST", "/api/v1/batch/analyses"): AS_OF_OUT_OF_RANGE,
    ("POST", "/api/v1/holdings/import"): "; HOLDINGS_FILE_INVALID: the file's first problem (details: line)",
    ("POST", "/api/v1/schedules"): "; BAD_SCHEDULE_NAME, BAD_SCHEDULE_TIME, BAD_TIMEZONE, BAD_SCHEDULE_DAYS, "
    "BAD_SCHEDULE_MODE, BAD_SCHEDULE_LANGUAGE: a field that cannot be used; UNKNOWN_WATCHLIST, "
    "UNKNOWN_CHANNEL, UNKNOWN_PAPER_BOOK: a reference to nothing stored or configured",
    (
        "POST",
        "/api/v1/portfolio/jobs",
    ): "; PORTFOLIO_SOURCE: name a watchlist or holdings=true (one of them); "
    "PORTFOLIO_EMPTY: no valued holdings on as_of, or no stored bars of the names by then",
}
_ROUTE_PATTERNS = [
    (method, re.compile(re.escape(path).replace(r"\{x\}", "[^/]+")), codes)
    for (method, path), codes in ROUTE_ERRORS.items()
]


def route_errors(method: str, path: str) -> set[int]:
    """Every error status the route can answer (the security layer's and its service's)."""
    codes = {400}
    if path in PUBLIC_PATHS:
        return codes
    codes.add(401)
    concrete = re.sub(r"\{[^}]+\}", "x", path)  # a template path as a request path would look
    spending = is_spending(method, concrete)
    if method in STATE_CHANGING or spending:
        codes.add(403)
    if method in STATE_CHANGING:
        codes.update((408, 413))
    codes.add(429)  # every route has its class's rate and concurrency limits (entrypoints/limits.py)
    for route_method, pattern, extra in _ROUTE_PATTERNS:
        if route_method == method and pattern.fullmatch(concrete):
            codes.update(extra)
    return codes


def install_openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components["ErrorBody"] = ERROR_SCHEMA
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                responses = operation.setdefault("responses", {})
                responses.pop("422", None)  # FastAPI's validation answer; ours is 400
                for code in sorted(route_errors(method.upper(), path)):
                    extra = ROUTE_400.get((method.upper(), path), "") if code == 400 else ""
                    responses[str(code)] = {
                        "description": DESCRIPTIONS[code] + extra,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
                        },
                    }
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    return openapi
