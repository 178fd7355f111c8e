"""The portfolio's errors, each with its own code (REST status and CLI exit 2 for the 4xx ones)."""

from __future__ import annotations

from stockdesk.shared.errors import BadRequestException, ConflictException, NotFoundException


class WatchlistNotFoundError(NotFoundException):
    code = "WATCHLIST_NOT_FOUND"


class PositionNotFoundError(NotFoundException):
    code = "POSITION_NOT_FOUND"


class UnknownSymbolError(NotFoundException):
    """A symbol (or name) the store does not know, or a name several securities share."""

    code = "UNKNOWN_SYMBOL"


class InvalidNameError(BadRequestException):
    code = "INVALID_NAME"


class HoldingsFileInvalidError(BadRequestException):
    """A holdings file that cannot be imported as a whole; `details.line` is the 1-based line."""

    code = "HOLDINGS_FILE_INVALID"

    def __init__(self, line: int | None, problem: str):
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"holdings file: {where}{problem}; nothing was imported", details={"line": line})
        self.line = line
        self.problem = problem


class InvalidPositionError(BadRequestException):
    code = "INVALID_POSITION"


class PortfolioSourceError(BadRequestException):
    """The portfolio view needs exactly one of a watchlist or the holdings."""

    code = "PORTFOLIO_SOURCE"


class PortfolioAmountError(BadRequestException):
    """A capital that is not positive, or a cash amount below zero (or beyond any real book)."""

    code = "PORTFOLIO_AMOUNT"


class PortfolioEmptyError(BadRequestException):
    """Nothing to allocate: no holdings on the date, or no stored bars of the names by then."""

    code = "PORTFOLIO_EMPTY"


class PortfolioJobNotFoundError(NotFoundException):
    code = "PORTFOLIO_JOB_NOT_FOUND"


class PortfolioJobNotFinishedError(ConflictException):
    """The view is asked for while names are left (or after its job failed or was stopped)."""

    code = "PORTFOLIO_JOB_NOT_FINISHED"


class ViewStepSkippedError(ConflictException):
    """The assembly not run because a name's verdict failed (not itself a cause of the failure)."""

    code = "PORTFOLIO_STEP_SKIPPED"
