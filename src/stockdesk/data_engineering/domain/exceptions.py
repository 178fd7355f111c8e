"""Errors of the data context; codes let REST clients tell them apart."""

from __future__ import annotations

from pydantic import BaseModel

from stockdesk.shared.errors import BadRequestException, NotFoundException, ServiceUnavailableError


class RowProblem(BaseModel):
    row: int | None  # 1-based data row in the file (header excluded); None for file-level problems
    reason: str


class ImportValidationError(BadRequestException):
    """A file failed validation; nothing of it was written."""

    code = "IMPORT_VALIDATION_FAILED"

    def __init__(self, source: str, problems: list[RowProblem]):
        shown = "; ".join(f"row {p.row}: {p.reason}" if p.row else p.reason for p in problems[:3])
        shown = " ".join(shown.split())  # one line, whatever a reason quotes from the file
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        super().__init__(
            f"{source}: rejected, nothing imported: {shown}{more}",
            details={"problems": [p.model_dump() for p in problems]},
        )
        self.source = source
        self.problems = problems


class IntradayImportError(ImportValidationError):
    """An intraday bar file was rejected; the one-line message names the file's lines (header included)."""

    def __init__(self, source: str, problems: list[RowProblem], header_lines: int = 1):
        super().__init__(source, problems)

        def where(p: RowProblem) -> str:
            return f"line {p.row + header_lines}: {p.reason}" if p.row else p.reason

        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        shown = " ".join("; ".join(where(p) for p in problems[:3]).split())
        self.message = f"{source}: {shown}{more}; nothing imported"
        self.args = (self.message,)
        self.details = {
            "problems": [
                {**p.model_dump(), "line": p.row + header_lines if p.row else None} for p in problems
            ]
        }


class SymbolNotFoundError(NotFoundException):
    code = "STOCK_NOT_FOUND"


class ProviderUnavailableError(ServiceUnavailableError):
    code = "DATA_PROVIDER_UNAVAILABLE"


class IntradayWindowError(BadRequestException):
    """5-minute bars asked of a window the source does not keep (yfinance: the last 60 days): refused
    before any call, in one line naming the limit and the earliest day to ask from."""

    code = "INTRADAY_WINDOW"


class AsOfOutOfRangeError(BadRequestException):
    """An as-of date outside a symbol's stored daily bars (or a symbol without any): an analysis
    there would rest on no evidence. `details`: symbol, as_of, first, last, side (after | before |
    none) and, for many symbols, `refused` (one such dict each), so a page can word it itself."""

    code = "AS_OF_OUT_OF_RANGE"
