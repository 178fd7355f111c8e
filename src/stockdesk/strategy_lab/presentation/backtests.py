"""One backtest as a server request: the one way REST (`POST /api/v1/strategy/backtest`) and the web
UI's backtest form run it.

The request's bounds (universe, window) are checked first, then the parameters typed by a person
are read with the same feedback the model gets (400 INVALID_STRATEGY_PARAMS with the structured
details), then the service's no-LLM path scores them.
"""

from __future__ import annotations

from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.strategy_lab.application.service import StrategyLabService, parse_params
from stockdesk.strategy_lab.domain.dtos import BacktestResult
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import BacktestBody


def checked_backtest(
    service: StrategyLabService, bounds: RequestBounds, body: BacktestBody
) -> BacktestResult:
    """The backtest of `body`, refused (422) beyond the server's bounds before any work."""
    bounds.check_universe(body.universe)
    bounds.check_window(body.start, body.end)
    return service.backtest(parse_params(body.params), body.window(), body.execution)
