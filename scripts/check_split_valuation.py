"""Check the valuation snapshot's PE across a stock split against a hand computation from real data.

By hand (json and csv only, no stockdesk code): from the SEC companyfacts JSON, the diluted EPS as
known on the as-of date (each value the latest filed by then) of the latest year-to-date period, the
last fiscal year and the same period a year earlier; each divided by the ratios of the Yahoo
`Stock Splits` dated after its filing and on or before the as-of date; EPS TTM = latest YTD + last
annual - a year earlier. The price is the close traded that day (Yahoo's close times the ratios of
the splits after it). Then the same files go through stockdesk's importers into a temporary store and
the valuation snapshot is built as of that date; its PE must be within 1 % of price / EPS TTM.

    python scripts/check_split_valuation.py                      # NVDA as of 2024-07-26
    python scripts/check_split_valuation.py --symbol AAPL --cik 320193 --as-of 2020-09-30

Reads ../shared/data (beside the checkout); skips with a message when it is not there.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import tempfile
from datetime import date, datetime
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FORMS = {"10-K", "10-Q", "10-K/A", "10-Q/A"}
TOLERANCE = 0.01


def day(text: str) -> date:
    """ISO (`2024-07-26`, also with a time) or Yahoo's m/d/Y (`7/26/2024`)."""
    if "/" in text:
        return datetime.strptime(text.strip(), "%m/%d/%Y").date()
    return datetime.strptime(text[:10], "%Y-%m-%d").date()


def yahoo_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        rows = [
            {"date": day(r["Date"]), "close": float(r["Close"]), "split": float(r["Stock Splits"] or 0)}
            for r in csv.DictReader(handle)
        ]
    return sorted(rows, key=lambda r: r["date"])


def eps_as_known(facts: dict[str, Any], as_of: date) -> dict[tuple[date, date], tuple[float, date]]:
    """(start, end) -> (value, filed) of the diluted EPS durations, the latest filed by `as_of`."""
    items = facts["facts"]["us-gaap"]["EarningsPerShareDiluted"]["units"]["USD/shares"]
    known: dict[tuple[date, date], tuple[float, date]] = {}
    for item in sorted(items, key=lambda i: i["filed"]):
        if item.get("form") in FORMS and "start" in item and day(item["filed"]) <= as_of:
            known[(day(item["start"]), day(item["end"]))] = (float(item["val"]), day(item["filed"]))
    return known


def by_hand(facts: dict[str, Any], yahoo: list[dict[str, Any]], as_of: date) -> dict[str, Any]:
    known = eps_as_known(facts, as_of)
    splits = [(r["date"], r["split"]) for r in yahoo if r["split"] > 0 and r["date"] <= as_of]

    def adjusted(key: tuple[date, date]) -> float:
        value, filed = known[key]
        return value / math.prod(ratio for ex, ratio in splits if filed < ex)

    def months(key: tuple[date, date]) -> int:
        return round((key[1] - key[0]).days / 30.4)

    ytd = [k for k in known if k[0].month == known_year_start(known, k)]
    latest = max(ytd, key=lambda k: k[1])
    annual = max((k for k in known if months(k) == 12 and k[1] <= latest[1]), key=lambda k: k[1])
    earlier = min(
        (k for k in known if months(k) == months(latest) and abs((latest[1] - k[1]).days - 364) <= 20),
        key=lambda k: abs((latest[1] - k[1]).days - 364),
    )
    eps_ttm = adjusted(latest) + (adjusted(annual) - adjusted(earlier) if latest != annual else 0.0)
    row = max((r for r in yahoo if r["date"] <= as_of), key=lambda r: r["date"])
    later = math.prod(r["split"] for r in yahoo if r["split"] > 0 and r["date"] > row["date"])
    price = row["close"] * later
    return {"latest": (latest, known[latest]), "annual": (annual, known[annual]),
            "earlier": (earlier, known[earlier]), "splits": splits, "eps_ttm": eps_ttm,
            "price": price, "trade_date": row["date"], "pe": price / eps_ttm}  # fmt: skip


def known_year_start(known: dict[tuple[date, date], tuple[float, date]], key: tuple[date, date]) -> int:
    """The month a fiscal year starts in: that of the 12-month periods' starts (year-to-date figures
    start there; a discrete quarter does not, except the first)."""
    starts = [k[0].month for k in known if round((k[1] - k[0]).days / 30.4) == 12]
    return max(set(starts), key=starts.count) if starts else key[0].month


def snapshot(facts_path: Path, submissions_path: Path, yahoo_path: Path, symbol: str, as_of: date) -> Any:
    """The valuation snapshot from a temporary store the real files were imported into."""
    from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
    from stockdesk.data_engineering.application.import_service import MarketDataImportService
    from stockdesk.data_engineering.container import DataEngineeringContainer
    from stockdesk.data_engineering.infrastructure.importers.sec_json import company_group
    from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import read_yfinance_csv
    from stockdesk.research.container import ResearchContainer
    from stockdesk.shared.config import Settings
    from stockdesk.shared.db import Database

    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home))
        database = Database(f"sqlite:///{Path(home) / 'check.db'}")
        data = DataEngineeringContainer(settings, database)
        service = MarketDataImportService(data.repository)
        files = {
            "companyfacts": (facts_path, json.loads(facts_path.read_text(encoding="utf-8"))),
            "submissions": (submissions_path, json.loads(submissions_path.read_text(encoding="utf-8"))),
        }
        cik = f"{int(files['submissions'][1]['cik']):010d}"
        for group in [company_group(cik, files), *read_yfinance_csv(yahoo_path, symbol)]:
            service.import_frames(group.source, group.frames)
        DerivedValuationService(data.repository).refresh([symbol])
        research = ResearchContainer(
            basic_info=data.stock_basic_info, valuations=data.valuations, finance=data.finance,
            bars=data.daily_bars, llm_service=lambda: None, search=lambda: None,  # type: ignore[arg-type,return-value]
        )  # fmt: skip
        built = research.valuation_modeler.build_snapshot(symbol, as_of)
        database.dispose()
        return built


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbol", default="NVDA")
    parser.add_argument("--cik", type=int, default=1045810)
    parser.add_argument("--as-of", default="2024-07-26")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    as_of = day(args.as_of)
    facts_path = args.data / "sec" / "companyfacts" / f"CIK{args.cik:010d}.json"
    submissions_path = args.data / "sec" / "submissions" / f"CIK{args.cik:010d}.json"
    yahoo_path = args.data / "yfinance" / f"{args.symbol}_historical_data.csv"
    missing = [p for p in (facts_path, submissions_path, yahoo_path) if not p.is_file()]
    if missing:
        print(f"skipped: {', '.join(str(p) for p in missing)} not found (real data lives in ../shared/data)")
        return 0
    hand = by_hand(json.loads(facts_path.read_text(encoding="utf-8")), yahoo_rows(yahoo_path), as_of)
    print(f"{args.symbol} as of {as_of}, by hand from {facts_path.name} and {yahoo_path.name}:")
    for name in ("latest", "annual", "earlier"):
        (start, end), (value, filed) = hand[name]
        print(f"  {name:8} EPS diluted {start}..{end} = {value} (filed {filed})")
    print(f"  splits on or before {as_of}: {', '.join(f'{d} x{r:g}' for d, r in hand['splits']) or 'none'}")
    print(f"  split-adjusted EPS TTM = {hand['eps_ttm']:.4f}")
    print(f"  close traded {hand['trade_date']} = {hand['price']:.2f}")
    print(f"  price / EPS TTM = {hand['pe']:.2f}")
    snap = snapshot(facts_path, submissions_path, yahoo_path, args.symbol, as_of)
    print(f"snapshot: PE TTM {snap.pe_ttm}, EPS TTM {snap.eps_ttm}, price {snap.current_price}")
    print(f"  BPS {snap.bps}, Graham value {snap.graham_intrinsic_val}")
    print(f"  Graham safety margin {snap.graham_safety_margin} %")
    if not isinstance(snap.pe_ttm, float):
        print("FAIL: the snapshot has no PE TTM")
        return 1
    off = snap.pe_ttm / hand["pe"] - 1
    verdict = "OK" if abs(off) <= TOLERANCE else "FAIL"
    print(f"{verdict}: snapshot PE is {off * 100:+.3f} % from the hand computation (tolerance 1 %)")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
