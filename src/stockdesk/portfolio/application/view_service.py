"""The portfolio view: a watchlist or the holdings, the day's rules verdicts combined into target
weights by code (`allocation.allocate`), the trades to get there (`trades`), and the risk figures of
the current and the target book (`risk`), as of one date.

- The book. A watchlist: its symbols; the current book holds those of them that are held (valued at
  the as-of close); the book's value is the capital. The holdings: every held name; the book's
  value is the positions' market value plus the cash.
- One market. A book is sized in one market's currency: the market most of its names are in; the
  others are left out and named in the view's notes.
- The verdicts come from the coordinator's rules verdicts (handed in by the composition root as
  `NameVerdict`s: this context sits below the coordinator's layer).
- The window is the last WINDOW_DAYS trading days of the benchmark up to the as-of date; the
  benchmark is the equal-weight index (`backtest.index_levels`) of every stored symbol of the market.
- Point in time: every bar read is dated on or before the as-of date, so a change to a later bar
  changes nothing here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta

import pandas as pd

from stockdesk.backtest.application import adjusted_prices, index_levels
from stockdesk.portfolio.application.allocation import (
    WINDOW_DAYS,
    Limits,
    NameInput,
    allocate,
    market_words,
    reason,
)
from stockdesk.portfolio.application.market import PortfolioMarket
from stockdesk.portfolio.application.risk import book_returns, book_risk, shrunk_covariance
from stockdesk.portfolio.application.services import HeldPosition, HoldingsService, WatchlistService
from stockdesk.portfolio.application.trades import rebalance_trades
from stockdesk.portfolio.domain.errors import PortfolioAmountError, PortfolioEmptyError, PortfolioSourceError
from stockdesk.portfolio.domain.view import (
    BookPoint,
    HeldName,
    NameAllocation,
    NameVerdict,
    PortfolioView,
    Reason,
    ViewRequest,
)

DEFAULT_CAPITAL = 1_000_000.0
MAX_AMOUNT = 1e15
HISTORY_DAYS = 400
"""Calendar days of bars read before the as-of date: WINDOW_DAYS trading days and one more."""

VerdictSource = Callable[[list[str], date], list[NameVerdict]]
"""(symbols, as_of) -> one rules verdict per symbol, in order."""


def _held(positions: Sequence[HeldPosition], as_of: date) -> dict[str, HeldName]:
    """What is held of each name: shares, value and the shares bought on the as-of day."""
    held: dict[str, HeldName] = {}
    for p in positions:
        line = held.setdefault(p.symbol, HeldName())
        line.shares += p.quantity
        line.value += p.market_value or 0.0
        if p.opened_at == as_of:
            line.locked += p.quantity
    return held


class PortfolioViewService:
    """The view in three steps, so that a job can run the slow middle one a name at a time: `check`
    (every refusal, before any work), `verdict` (one name's day verdict), `assemble` (allocation,
    trades, risk). `view` runs the three in a row."""

    def __init__(
        self,
        watchlists: WatchlistService,
        holdings: HoldingsService,
        market: PortfolioMarket,
        verdicts: VerdictSource,
    ):
        self._watchlists = watchlists
        self._holdings = holdings
        self._market = market
        self._verdicts = verdicts

    def view(
        self,
        as_of: date,
        *,
        watchlist: str | None = None,
        holdings: bool = False,
        capital: float | None = None,
        cash: float = 0.0,
        limits: Limits | None = None,
    ) -> PortfolioView:
        request = self.check(
            as_of, watchlist=watchlist, holdings=holdings, capital=capital, cash=cash, limits=limits
        )
        return self.assemble(request, {s: self.verdict(request, s) for s in request.names})

    def check(
        self,
        as_of: date,
        *,
        watchlist: str | None = None,
        holdings: bool = False,
        capital: float | None = None,
        cash: float = 0.0,
        limits: Limits | None = None,
    ) -> ViewRequest:
        """The request checked (400 PORTFOLIO_SOURCE / PORTFOLIO_AMOUNT / PORTFOLIO_EMPTY, 404
        WATCHLIST_NOT_FOUND) and resolved: its names, their market and what is held of them."""
        if (watchlist is None) == (not holdings):
            raise PortfolioSourceError("name a watchlist or the holdings (one of them)")
        capital = DEFAULT_CAPITAL if capital is None else capital
        if not (0 < capital <= MAX_AMOUNT) or not (0 <= cash <= MAX_AMOUNT):
            raise PortfolioAmountError(
                f"capital must be > 0 and cash >= 0, both at most {MAX_AMOUNT:g} (got {capital:g}, {cash:g})"
            )
        positions = self._holdings.positions(as_of)
        if watchlist is not None:
            symbols = self._watchlists.symbols(watchlist)
            positions = [p for p in positions if p.symbol in symbols]
        else:
            symbols = list(dict.fromkeys(p.symbol for p in positions if p.market_value is not None))
            if not symbols:
                raise PortfolioEmptyError(f"no valued holdings on {as_of.isoformat()}")
        securities = self._market.securities()
        markets = {s: str(securities[s].market).upper() for s in symbols if s in securities}
        if not markets:
            raise PortfolioEmptyError("none of the names is in the store")
        market = Counter(markets.values()).most_common(1)[0][0]
        names = [s for s in symbols if markets.get(s) == market]
        bars = self._market.bars(names, as_of - timedelta(days=HISTORY_DAYS), as_of)
        if bars.empty:
            raise PortfolioEmptyError(f"no stored bars of the names on or before {as_of.isoformat()}")
        return ViewRequest(
            source="holdings" if watchlist is None else "watchlist", watchlist=watchlist, as_of=as_of,
            capital=capital if watchlist is not None else None, cash=cash if watchlist is None else 0.0,
            limits=(limits or Limits()).as_dict(), market=market, names=names,
            outside=[s for s in symbols if s not in names], held=_held(positions, as_of),
        )  # fmt: skip

    def verdict(self, request: ViewRequest, symbol: str) -> NameVerdict:
        """One name's day verdict (the slow step: a rules session of the coordinator)."""
        found = self._verdicts([symbol], request.as_of)
        return found[0] if found else NameVerdict(symbol=symbol, action=None)

    def assemble(self, request: ViewRequest, verdicts: Mapping[str, NameVerdict]) -> PortfolioView:
        """The view of the checked request from its names' verdicts (a name without one: no verdict)."""
        as_of, names, market, held = request.as_of, request.names, request.market, request.held
        securities = self._market.securities()
        notes: list[Reason] = []
        if request.outside:
            outside = ", ".join(request.outside)
            notes.append(reason("mixed_markets", "note", market=market_words(market), symbols=outside))
        universe = sorted(s for s, info in securities.items() if str(info.market).upper() == market)
        bars = self._market.bars(sorted({*names, *universe}), as_of - timedelta(days=HISTORY_DAYS), as_of)
        levels = index_levels(bars, universe)["close"]
        days = levels.index[-(WINDOW_DAYS + 1) :]
        closes, _ = adjusted_prices(bars.loc[bars["symbol"].isin(names)])
        returns = closes.reindex(days).pct_change(fill_method=None).iloc[1:].reindex(columns=names)
        bench = levels.reindex(days).pct_change().iloc[1:]
        covariance = shrunk_covariance(returns)
        value = {s: h.value for s, h in held.items()}
        invested = sum(value.get(s, 0.0) for s in names)
        book_value = invested + request.cash if request.capital is None else request.capital
        inputs = [
            NameInput(
                verdict=verdicts.get(s) or NameVerdict(symbol=s, action=None),
                name=securities[s].name or "", industry=securities[s].industry or "",
                current_weight=value.get(s, 0.0) / book_value if book_value > 0 else 0.0,
                held=s in held and held[s].shares > 0,
            )
            for s in names
        ]  # fmt: skip
        allocations = allocate(inputs, returns, covariance, Limits(**request.limits))
        trades = rebalance_trades(
            allocations, book_value, _last_raw_closes(bars, names),
            {s: h.shares for s, h in held.items()}, {s: h.locked for s, h in held.items() if h.locked},
            dict.fromkeys(names, market), as_of,
        )  # fmt: skip
        current = {a.symbol: a.current_weight for a in allocations}
        target = {a.symbol: a.target_weight for a in allocations}
        notes += [
            reason("benchmark", "note", n=len(universe), market=market_words(market)),
            reason("trades", "note", day=as_of.isoformat()),
            reason("point_in_time", "note", day=as_of.isoformat()),
        ]
        return PortfolioView(
            source=request.source, watchlist=request.watchlist, as_of=as_of,
            book_value=round(book_value, 2), cash=round(book_value - invested, 2),
            benchmark=f"equal-weight {market} ({len(universe)} symbols)", window_days=len(returns),
            window_start=days[0].date() if len(days) else None, limits=request.limits,
            allocations=allocations,
            current=book_risk(current, returns, covariance, bench),
            target=book_risk(target, returns, covariance, bench),
            trades=trades, total_costs=round(sum(t.costs for t in trades), 2),
            curve=_curve(returns, current, target, levels.reindex(days)), notes=notes,
        )  # fmt: skip


def _last_raw_closes(bars: pd.DataFrame, names: Sequence[str]) -> dict[str, float]:
    out = {}
    for symbol, rows in bars.loc[bars["symbol"].isin(list(names))].groupby("symbol"):
        dated = rows.dropna(subset=["close"]).sort_values("trade_date")
        if len(dated):
            out[str(symbol)] = float(dated["close"].iloc[-1])
    return out


def _curve(
    returns: pd.DataFrame, current: dict[str, float], target: dict[str, float], levels: pd.Series
) -> list[BookPoint]:
    """The window's value of both books at fixed weights and of the benchmark, from 1.0."""
    if levels.empty:
        return []
    now = (1.0 + book_returns(current, returns)).cumprod()
    then = (1.0 + book_returns(target, returns)).cumprod()
    first = levels.iloc[0]
    points = [BookPoint(day=levels.index[0].date(), target=1.0, current=1.0, benchmark=1.0)]
    for day in returns.index:
        level = levels.get(day)
        points.append(
            BookPoint(
                day=day.date(), target=round(float(then[day]), 6), current=round(float(now[day]), 6),
                benchmark=None if level is None or pd.isna(level) else round(float(level / first), 6),
            )
        )  # fmt: skip
    return points


def allocation_rows(view: PortfolioView) -> list[NameAllocation]:
    """The names with a current or a target weight first (largest target first), then the rest."""
    return sorted(
        view.allocations, key=lambda a: (-(a.target_weight > 0 or a.current_weight > 0), -a.target_weight)
    )
