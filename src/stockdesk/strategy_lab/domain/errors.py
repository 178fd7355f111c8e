"""Strategy lab errors: structured validation details (C4) and the failures the interfaces map."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stockdesk.shared.errors import BadRequestException, NotFoundException, StockdeskError


@dataclass
class ValidationErrorDetail:
    """Single validation error with context."""

    field_path: str  # e.g. "params.momentum_period"; "$" for the whole answer
    error_type: str  # invalid_value, missing_field, type_error, json_error, too_short, too_long, ...
    given_value: Any
    allowed_values: list[Any] = field(default_factory=list)
    suggestion: str = ""
    expected_type: str | None = None
    message: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "field_path": self.field_path,
            "error_type": self.error_type,
            "given_value": self.given_value,
            "allowed_values": list(self.allowed_values),
            "suggestion": self.suggestion,
            "expected_type": self.expected_type,
            "message": self.message,
        }


class GenerationFailedError(StockdeskError):
    """Every attempt to get valid parameters failed; carries the errors of all attempts."""

    code = "GENERATION_FAILED"
    http_status = 422

    def __init__(
        self,
        errors: list[ValidationErrorDetail],
        attempts: int,
        message: str | None = None,
        *,
        tokens: int = 0,
    ):
        summary = "; ".join(f"{e.field_path}: {e.error_type}" for e in errors[-3:]) or "no output"
        super().__init__(
            message or f"no valid strategy parameters after {attempts} attempt(s): {summary}",
            details={"errors": [e.as_dict() for e in errors], "attempts": attempts},
        )
        self.errors = errors
        self.attempts = attempts
        self.tokens = tokens


class InvalidStrategyParamsError(BadRequestException):
    """Parameters given directly (CLI --params, REST body) are not a valid parameter set."""

    code = "INVALID_STRATEGY_PARAMS"


class InvalidUniverseError(BadRequestException):
    """The universe is empty, names unknown symbols or has too little history in the window."""

    code = "INVALID_UNIVERSE"


class InvalidBacktestWindowError(BadRequestException):
    code = "INVALID_BACKTEST_WINDOW"


class StrategyExecutionError(StockdeskError):
    """The generated strategy raised or returned something unusable while computing its weights."""

    code = "STRATEGY_EXECUTION_ERROR"
    http_status = 422


class UnsafeStrategyCodeError(StockdeskError):
    """Generated code failed the ast/compile check (a template bug, never the LLM's)."""

    code = "UNSAFE_STRATEGY_CODE"
    http_status = 500


class StrategyRunNotFoundError(NotFoundException):
    code = "STRATEGY_RUN_NOT_FOUND"


class RunNotResumableError(BadRequestException):
    code = "RUN_NOT_RESUMABLE"


class NothingToReplayError(NotFoundException):
    code = "NOTHING_TO_REPLAY"
