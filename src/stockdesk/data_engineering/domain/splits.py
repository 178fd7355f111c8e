"""Stock splits, and per-share figures put on the share basis of the day they are read for.

A split of `ratio` r (r new shares for each old one; 0.5 for a 1-for-2 reverse split) takes effect
on its `ex_date`, the first trading day on the new basis: from then on prices are quoted per new
share, so an EPS, book value or dividend per share stated per old share must be divided by r, and a
share count multiplied by r, before it is set beside a price.

Which figures a split adjusts (the rule, applied per figure): a figure is stated on the share basis
of the day its filing was filed, its *basis date*. A company restates every per-share figure and
share count it presents, for all periods, once a split has occurred, even in statements of periods
that ended before it (ASC 260-10-55-12 for EPS, SEC SAB Topic 4C for the share capital); a filing
made before the split states the old basis. So, read as of day d, a figure with basis date b is
adjusted by the product of the ratios of the splits with b < ex_date <= d that are known by d. A
later filing that re-reports a period after a split (a restatement) gives the figure its own filing
date as basis, so nothing is adjusted twice. A split after d is invisible on d.

Known by d: a split from the price data (Yahoo's `Stock Splits`) is known on its ex-date; one only
found in the filings (`StockholdersEquityNoteStockSplitConversionRatio1`) on the filing date of the
first filing that tags it, and where both sources have it the price data's ex-date is used.
Stored prices are the prices traded on each day (see `importers/yfinance_csv.py`), so a price of
day d and figures put on the basis of d can be divided one by the other.

Basis dates: a row's figures have its `ann_date` as basis, except where the row carries a value
over from an earlier filing (the SEC importer keeps each period's latest value of every field):
`extra["split_basis"]` then maps the figure's column to the filing date of the value it carries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain.frames import SPLIT_COLUMNS, SPLIT_KEY

PRICES, FILINGS = "prices", "filings"  # the sources of a split event; the price data's ex-date wins
SAME_EVENT_DAYS = 120  # a filing-tagged split this close to a price split of the same ratio is that split
BASIS_KEY = "split_basis"  # extra: {column: filing date (ISO) the carried value is stated on}

# per-share figures: divided by the split ratio; share counts: multiplied
PER_SHARE = ("eps", "dt_eps", "bps", "revenue_ps", "ocfps", "cfps")
SHARE_COUNTS = ("total_shares",)
ADJUSTED = (*PER_SHARE, *SHARE_COUNTS)
# whose value a figure's basis follows where the importer records it (bps = equity / shares)
BASIS_OF = {"eps": "eps", "dt_eps": "dt_eps", "bps": "total_shares", "total_shares": "total_shares"}
EARLIEST = np.datetime64("1000-01-01", "D")


def ratio_after(ratios: pd.Series) -> pd.Series:
    """Product of the split ratios strictly after each row of a date-ordered daily series (0 or
    blank = no split): the factor that turns a price quoted on today's basis (Yahoo restates its
    whole history after a split) into the price traded that day."""
    ratio = ratios.where(ratios > 0, 1.0).fillna(1.0)
    from_row_on = ratio[::-1].cumprod()[::-1]
    return from_row_on / ratio


def events(splits: pd.DataFrame | None) -> pd.DataFrame:
    """The split events to apply, per symbol by ex-date: a filing-tagged split that a price split of
    the same ratio within SAME_EVENT_DAYS already records is dropped (the price data's date is exact;
    a filing tags the date it chose: announcement, approval, record or distribution)."""
    if splits is None or splits.empty:
        return pd.DataFrame(columns=SPLIT_COLUMNS)
    out = splits.reindex(columns=SPLIT_COLUMNS).copy()
    for column in ("ex_date", "known_date"):
        out[column] = pd.to_datetime(out[column]).astype("datetime64[ns]")
    out["known_date"] = out["known_date"].fillna(out["ex_date"])
    out["ratio"] = pd.to_numeric(out["ratio"], errors="coerce")
    out = out[(out["ratio"] > 0) & (out["ratio"] != 1) & out["ex_date"].notna()]
    filed = (out["source"] == FILINGS).to_numpy()
    symbol, ratio = out["symbol"].to_numpy(dtype=object), out["ratio"].to_numpy(dtype="float64")
    ex = out["ex_date"].to_numpy(dtype="datetime64[D]")
    near = np.timedelta64(SAME_EVENT_DAYS, "D")
    recorded = [  # few rows: a loop over the filings' splits reads more plainly than a self-merge
        i
        for i in np.flatnonzero(filed)
        if (~filed & (symbol == symbol[i]) & (abs(ex - ex[i]) <= near) & np.isclose(ratio, ratio[i])).any()
    ]
    out = out.drop(index=out.index[recorded])
    return out.sort_values(SPLIT_KEY).reset_index(drop=True)


def share_factor(splits: pd.DataFrame, basis: Any, day: Any) -> np.ndarray:
    """Per element, the product of the ratios of `splits` (one symbol's `events`) with
    basis < ex_date <= day, known by day: what a per-share figure stated on `basis` is divided by
    (a share count multiplied by) to be on the share basis of `day`. `basis`/`day`: dates or arrays."""
    basis = np.asarray(basis, dtype="datetime64[D]")
    day = np.asarray(day, dtype="datetime64[D]")
    out = np.ones(np.broadcast(basis, day).shape)
    ex = splits["ex_date"].to_numpy(dtype="datetime64[D]")
    known = splits["known_date"].to_numpy(dtype="datetime64[D]")
    for ex_date, known_date, ratio in zip(ex, known, splits["ratio"].to_numpy(dtype="float64"), strict=True):
        applies = (basis < ex_date) & (ex_date <= day) & (known_date <= day)
        out = np.where(applies, out * ratio, out)
    return out


def cumulative_ratio(frame: pd.DataFrame, splits: pd.DataFrame | None, column: str) -> np.ndarray:
    """Per row, the product of the ratios of its symbol's splits in effect and known by the row's
    `column` date: an amount per share stated on day d1 is amount x this (d1) / this (d2) on the basis
    of day d2 (exact wherever each split was known on its ex-date, as the price data's are)."""
    out = np.ones(len(frame))
    for symbol, found in _by_symbol(frame, splits):
        rows = (frame["symbol"] == symbol).to_numpy()
        days = pd.to_datetime(frame.loc[rows, column]).to_numpy(dtype="datetime64[D]")
        out[rows] = share_factor(found, EARLIEST, days)
    return out


def carried_basis(extra: Any, column: str) -> str | None:
    """The filing date (ISO) a row's `column` value is stated on when it was carried over from an
    earlier filing (`extra["split_basis"]`); None: the row's own `ann_date`."""
    if not isinstance(extra, dict):
        return None
    return (extra.get(BASIS_KEY) or {}).get(BASIS_OF.get(column, column))


def per_share_factors(
    splits: pd.DataFrame, ann: Any, extras: Sequence[Any], day: Any
) -> dict[str, np.ndarray]:
    """Per adjusted column, what each row's value is divided by (per-share figures) or multiplied by
    (share counts) to be on the share basis of `day`: rows given by their `ann_date`s and `extra`s,
    `splits` one symbol's `events`."""
    ann = np.asarray(ann, dtype="datetime64[D]")
    factors = {}
    for column in ADJUSTED:
        carried = [carried_basis(extra, column) for extra in extras]
        basis = ann
        if any(carried):
            basis = np.array([c or str(a) for c, a in zip(carried, ann, strict=True)], dtype="datetime64[D]")
        factors[column] = share_factor(splits, basis, day)
    return factors


def rescaled(value: Any, factor: Any, column: str) -> Any:
    """`value` of `column` put on another share basis by its factor (see `per_share_factors`)."""
    return value * factor if column in SHARE_COUNTS else value / factor


def _adjusted(frame: pd.DataFrame, splits: pd.DataFrame, day: Any) -> pd.DataFrame:
    """One symbol's rows with their per-share figures put on the basis of `day` (one, or one per row)."""
    extras = list(frame["extra"]) if "extra" in frame else [None] * len(frame)
    factors = per_share_factors(splits, pd.to_datetime(frame["ann_date"]), extras, day)
    out = frame.copy()
    for column, factor in factors.items():
        if column in out.columns and not (factor == 1.0).all():
            values = pd.to_numeric(out[column], errors="coerce").to_numpy(dtype="float64")
            out[column] = rescaled(values, factor, column)
    return out


def _by_symbol(frame: pd.DataFrame, splits: pd.DataFrame | None) -> Iterable[tuple[str, pd.DataFrame]]:
    """(symbol, its events) for the symbols of `frame` that have split events."""
    found = events(splits)
    if found.empty or frame.empty:
        return []
    wanted = set(frame["symbol"].unique())
    return [(s, e) for s, e in found.groupby("symbol", sort=False) if s in wanted]


def versions_on_daily_basis(versions: pd.DataFrame, splits: pd.DataFrame | None) -> pd.DataFrame:
    """Every announced version, such that on any day the latest version of each period announced by
    then is on that day's share basis: each version on the basis of its own `ann_date`, and, on the day
    a split becomes applicable (its ex-date, or the day it becomes known if later), a copy of each
    period's then-latest version on the new basis, dated that day and marked in `extra`
    (`rebased_for_split`). Consumers that slice versions by `ann_date` (derived valuations, the
    evaluation's batch path, the screens) then read split-adjusted figures without knowing of splits.
    """
    parts = []
    for symbol, found in _by_symbol(versions, splits):
        rows = versions[versions["symbol"] == symbol]
        ann = pd.to_datetime(rows["ann_date"]).to_numpy(dtype="datetime64[D]")
        parts.append((symbol, _adjusted(rows, found, ann), _copies(rows, found)))
    if not parts:
        return versions
    touched = {symbol for symbol, _, _ in parts}
    kept = versions[~versions["symbol"].isin(touched)]
    out = pd.concat([kept, *(own for _, own, _ in parts), *(c for _, _, c in parts)], ignore_index=True)
    return out.sort_values(["symbol", "end_date", "ann_date"]).reset_index(drop=True)


def _copies(rows: pd.DataFrame, splits: pd.DataFrame) -> pd.DataFrame:
    """One symbol's re-based copies: per applicability day, each period's latest version before it
    whose figures that day's basis changes (a version announced on the day itself is already on it)."""
    ann = pd.to_datetime(rows["ann_date"])
    applies = np.maximum(splits["ex_date"], splits["known_date"]).to_numpy(dtype="datetime64[D]")
    dated = pd.api.types.is_datetime64_any_dtype(rows["ann_date"])
    copies = []
    for day in np.unique(applies):
        stamp = pd.Timestamp(day)
        known = rows[ann <= stamp]
        newest = ann[known.index].groupby(known["end_date"]).transform("max")
        latest = known[(ann[known.index] == newest) & (newest < stamp)]
        before = _adjusted(latest, splits, ann[latest.index].to_numpy(dtype="datetime64[D]"))
        after = _adjusted(latest, splits, np.full(len(latest), day))
        changed = after[_differs(before, after)].copy()
        if changed.empty:
            continue
        extras = changed["extra"] if "extra" in changed else pd.Series(None, index=changed.index)
        changed["extra"] = [_marked(e, stamp) for e in extras]
        copies.append(changed.assign(ann_date=stamp if dated else stamp.date()))
    return pd.concat(copies) if copies else rows.iloc[0:0]


def _differs(before: pd.DataFrame, after: pd.DataFrame) -> np.ndarray:
    changed = np.zeros(len(before), dtype=bool)
    for column in (c for c in ADJUSTED if c in before.columns):
        a = pd.to_numeric(before[column], errors="coerce").to_numpy(dtype="float64")
        b = pd.to_numeric(after[column], errors="coerce").to_numpy(dtype="float64")
        changed |= ~np.isnan(a) & (a != b)
    return changed


def _marked(extra: Any, day: pd.Timestamp) -> dict[str, Any]:
    return {**(extra if isinstance(extra, dict) else {}), "rebased_for_split": day.date().isoformat()}
