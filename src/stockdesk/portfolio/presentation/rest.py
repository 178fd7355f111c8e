"""Watchlists and holdings over REST (under /api/v1): the CLI's operations with the same errors
(404 WATCHLIST_NOT_FOUND, UNKNOWN_SYMBOL, POSITION_NOT_FOUND; 400 HOLDINGS_FILE_INVALID with
`details.line`, INVALID_NAME, INVALID_POSITION)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, Path, Query, Response, UploadFile
from pydantic import BaseModel, Field

from stockdesk.portfolio.application import (
    DEFAULT_ACCOUNT,
    HeldPosition,
    HoldingsService,
    ImportResult,
    Position,
    Watchlist,
    WatchlistService,
)
from stockdesk.portfolio.domain.errors import HoldingsFileInvalidError
from stockdesk.portfolio.domain.model import MAX_PRICE, MAX_QUANTITY, NAME_RULE
from stockdesk.shared.dates import IsoDay

MAX_HOLDINGS_FILE_BYTES = 10 * 1024 * 1024
MAX_SYMBOLS = 500
NAME = Path(max_length=64, pattern=NAME_RULE, description="the list's name")
ACCOUNT_OR_EMPTY = rf"^$|{NAME_RULE}"


class SymbolsBody(BaseModel):
    symbols: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(max_length=MAX_SYMBOLS)


class PositionBody(BaseModel):
    quantity: float = Field(gt=0, le=MAX_QUANTITY, description="shares held")
    cost_price: float = Field(ge=0, le=MAX_PRICE, description="average cost a share, in the listing currency")
    account: str = Field(default=DEFAULT_ACCOUNT, max_length=64, pattern=NAME_RULE)
    opened_at: date | None = None


def read_upload(file: UploadFile) -> bytes:
    """The upload's bytes (the multipart parser has spooled it to a temporary file), at most 10 MB."""
    data = file.file.read(MAX_HOLDINGS_FILE_BYTES + 1)
    if len(data) > MAX_HOLDINGS_FILE_BYTES:
        raise HoldingsFileInvalidError(None, "the file is larger than 10 MB")
    return data


def build_watchlist_router(get_service: Callable[[], WatchlistService]) -> APIRouter:
    router = APIRouter(prefix="/watchlists", tags=["watchlists"])

    @router.get("", response_model=list[Watchlist])
    def lists(service: WatchlistService = Depends(get_service)) -> list[Watchlist]:
        """Every watchlist with its symbols in order."""
        return service.lists()

    @router.get("/{name}", response_model=Watchlist)
    def one(name: str = NAME, service: WatchlistService = Depends(get_service)) -> Watchlist:
        """One list (404 WATCHLIST_NOT_FOUND)."""
        return service.get(name)

    @router.put("/{name}", response_model=Watchlist)
    def put(
        body: SymbolsBody, name: str = NAME, service: WatchlistService = Depends(get_service)
    ) -> Watchlist:
        """Create or overwrite the list with these symbols, codes or names (404 UNKNOWN_SYMBOL: nothing
        written)."""
        return service.replace(name, body.symbols)

    @router.delete("/{name}", status_code=204)
    def delete(name: str = NAME, service: WatchlistService = Depends(get_service)) -> Response:
        """Delete the list (404 WATCHLIST_NOT_FOUND)."""
        service.remove(name)
        return Response(status_code=204)

    @router.post("/{name}/symbols", response_model=Watchlist)
    def add(
        body: SymbolsBody, name: str = NAME, service: WatchlistService = Depends(get_service)
    ) -> Watchlist:
        """Append symbols the list lacks (created if missing; 404 UNKNOWN_SYMBOL: nothing written)."""
        return service.add(name, body.symbols)

    @router.delete("/{name}/symbols/{symbol}", response_model=Watchlist)
    def remove(
        name: str = NAME,
        symbol: str = Path(max_length=40),
        service: WatchlistService = Depends(get_service),
    ) -> Watchlist | None:
        """Drop one symbol from the list (404 WATCHLIST_NOT_FOUND)."""
        return service.remove(name, [symbol])

    return router


def build_holdings_router(get_service: Callable[[], HoldingsService]) -> APIRouter:
    router = APIRouter(prefix="/holdings", tags=["holdings"])

    @router.get("", response_model=list[HeldPosition])
    def positions(
        as_of: IsoDay | None = Query(default=None, description="YYYY-MM-DD; default today"),
        account: str | None = Query(default=None, max_length=64, pattern=NAME_RULE),
        service: HoldingsService = Depends(get_service),
    ) -> list[HeldPosition]:
        """The positions held on `as_of`, valued at the last close stored on or before it."""
        return service.positions(as_of or date.today(), account)

    @router.put("/{symbol}", response_model=Position)
    def put(
        body: PositionBody, symbol: str = Path(max_length=40), service: HoldingsService = Depends(get_service)
    ) -> Position:
        """Set the account's position in the symbol (404 UNKNOWN_SYMBOL)."""
        return service.set(symbol, body.quantity, body.cost_price, body.account, body.opened_at)

    @router.delete("/{symbol}", status_code=204)
    def delete(
        symbol: str = Path(max_length=40),
        account: str = Query(default=DEFAULT_ACCOUNT, max_length=64, pattern=NAME_RULE),
        service: HoldingsService = Depends(get_service),
    ) -> Response:
        """Remove the account's position (404 POSITION_NOT_FOUND)."""
        service.remove(symbol, account)
        return Response(status_code=204)

    @router.post("/import", response_model=ImportResult)
    def import_file(
        file: Annotated[
            UploadFile, File(description="generic CSV, 同花顺, 通达信 or Fidelity positions export")
        ],
        account: Annotated[str, Form(max_length=64, pattern=ACCOUNT_OR_EMPTY)] = "",
        replace: Annotated[bool, Form()] = False,
        service: HoldingsService = Depends(get_service),
    ) -> ImportResult:
        """Import a positions file whole or not at all (400 HOLDINGS_FILE_INVALID, `details.line`)."""
        return service.import_file(read_upload(file), account.strip() or None, replace)

    return router
