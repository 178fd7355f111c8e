"""Errors of the ticker briefing script, mapped by the shared handlers (CLI exit code, REST status)."""

from __future__ import annotations

from stockdesk.shared.errors import StockdeskError, one_line


class BriefingTickerError(StockdeskError):
    """One ticker's debate (or its preparation) failed, so the whole briefing fails.

    Keeps the cause's code and HTTP status (a 404 unknown symbol stays a 404) and names the ticker.
    """

    code = "BRIEFING_TICKER_FAILED"
    http_status = 500

    def __init__(self, ticker: str, cause: BaseException):
        code = cause.code if isinstance(cause, StockdeskError) else None
        super().__init__(f"{ticker}: {one_line(cause)}", code=code)
        if isinstance(cause, StockdeskError):
            self.http_status = cause.http_status
        self.ticker = ticker
