"""The paper book's application interface: `PaperService` and its typed views."""

from stockdesk.paper.application.book_run import SLIPPAGE, step_day
from stockdesk.paper.application.service import BookFigures, BookView, PaperService, figures
from stockdesk.paper.application.sizing import orders_for
from stockdesk.paper.domain.errors import BadBookInput, BookClosed, BookExists, BookNotFound
from stockdesk.paper.domain.models import (
    MAX_WEIGHT,
    DayOrder,
    DayResult,
    DayVerdict,
    PaperBook,
    PaperMark,
    PaperPosition,
    PaperTrade,
)

__all__ = [
    "MAX_WEIGHT",
    "SLIPPAGE",
    "BadBookInput",
    "BookClosed",
    "BookExists",
    "BookFigures",
    "BookNotFound",
    "BookView",
    "DayOrder",
    "DayResult",
    "DayVerdict",
    "PaperBook",
    "PaperMark",
    "PaperPosition",
    "PaperService",
    "PaperTrade",
    "figures",
    "orders_for",
    "step_day",
]
