"""The Holdings page: the positions valued at the close known on a date (the point-in-time rule of
`stockdesk holdings list`), a file upload that imports a holdings file whole or not at all (the
upload streams to a spooled file under the upload limits, as the data import's does), and forms to
set or remove one position. A refused form comes back with the error in the page's language and
nothing written."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.holdings_view import column_labels, holding_rows
from stockdesk.portfolio.application import DEFAULT_ACCOUNT, HoldingsService
from stockdesk.portfolio.presentation.rest import read_upload
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, StockdeskError

PAGE = "holdings/index.html.j2"


def _number(text: str, field: str) -> float:
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        raise BadRequestException(f"{field}: not a number", code="INVALID_POSITION") from None


def build_holdings_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def service() -> HoldingsService:
        return deps.container.portfolio.holdings

    def page(request: Request, as_of: date | None = None, status: int = 200, **extra: Any) -> Response:
        day = as_of or date.today()
        lang = pick_language(request)
        form = {"symbol": "", "quantity": "", "cost": "", "account": DEFAULT_ACCOUNT, "opened": ""}
        context = {
            "rows": holding_rows(service().positions(day), lang),
            "labels": column_labels(lang),
            "as_of": day.isoformat(),
            "error": None,
            "outcome": None,
            "form": form | extra.pop("form", {}),
            **extra,
        }
        return deps.pages.render(request, PAGE, context, status_code=status)

    @router.get("/holdings")
    def holdings(
        request: Request,
        as_of: str = Query("", max_length=10),
        edit: str = Query("", max_length=40),
        account: str = Query("", max_length=64),
    ) -> Response:
        """`as_of`: value at that date's close (400 INVALID_DATE); `edit`: the set form filled in."""
        day = parse_day(as_of.strip() or None, "as_of")
        form: dict[str, str] = {}
        for p in service().stored(account or None):
            if edit and p.symbol == edit:
                opened = p.opened_at.isoformat() if p.opened_at else ""
                form = {"symbol": p.symbol, "quantity": f"{p.quantity:g}", "cost": f"{p.cost_price:g}",
                        "account": p.account, "opened": opened}  # fmt: skip
        return page(request, day, form=form)

    @router.post("/holdings")
    def set_position(
        request: Request,
        symbol: str = Form("", max_length=40),
        quantity: str = Form("", max_length=32),
        cost: str = Form("", max_length=32),
        account: str = Form(DEFAULT_ACCOUNT, max_length=64),
        opened: str = Form("", max_length=10),
    ) -> Response:
        form = {"symbol": symbol, "quantity": quantity, "cost": cost, "account": account, "opened": opened}
        try:
            if not symbol.strip():
                raise BadRequestException("enter a symbol", code="SYMBOL_REQUIRED")
            service().set(
                symbol, _number(quantity, "quantity"), _number(cost, "cost"),
                account.strip() or DEFAULT_ACCOUNT, parse_day(opened.strip() or None, "opened"),
            )  # fmt: skip
        except StockdeskError as exc:
            return page(request, status=exc.http_status, error=exc, form=form)
        return RedirectResponse("/holdings", status_code=303)

    @router.post("/holdings/remove")
    def remove(
        request: Request,
        symbol: str = Form("", max_length=40),
        account: str = Form(DEFAULT_ACCOUNT, max_length=64),
    ) -> Response:
        try:
            service().remove(symbol, account)
        except StockdeskError as exc:
            return page(request, status=exc.http_status, error=exc)
        return RedirectResponse("/holdings", status_code=303)

    @router.post("/holdings/import")
    def import_file(
        request: Request,
        file: Annotated[UploadFile | None, File()] = None,
        account: str = Form("", max_length=64),
        replace: str = Form(""),
    ) -> Response:
        """The file imported whole (the table shows it) or refused naming its line (nothing written)."""
        try:
            if file is None or not file.filename:
                raise BadRequestException("choose a file to import", code="FILE_REQUIRED")
            outcome = service().import_file(read_upload(file), account.strip() or None, bool(replace))
        except StockdeskError as exc:
            return page(request, status=exc.http_status, error=exc)
        return page(request, outcome=outcome)

    return router
