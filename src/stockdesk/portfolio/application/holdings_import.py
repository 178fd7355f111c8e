"""Reading a holdings file: which layout it is (from its header row), and its positions, checked as a
whole (the first bad line is the error; nothing is returned half-read).

Layouts, each told apart by the header cells it must carry (cells compared after trimming spaces,
quotes and Excel's `="..."` text wrapping; the generic layout's names are case-blind):

- `generic`: stockdesk's own CSV. Header `symbol`, `quantity`, `cost_price` with optional `account` and
  `opened_at` (YYYY-MM-DD or YYYYMMDD). Any symbol spelling the data context accepts.
- `ths`: the position table ("资金股份" page) exported from 同花顺 (THS)'s 网上股票交易系统 (the 下单
  client). Identified by `证券代码`, `股票余额` and `成本价`. Used: 证券代码 (6-digit code),
  股票余额 (shares held), 成本价 (cost a share); 证券名称, 可用余额, 市价, 市值, 盈亏 are ignored
  (the store values the position). The column names are the ones that client writes in its
  export; no vendor specification of the file is published, so the fixture in tests follows them.
- `tdx`: the 持仓 (positions) export of 通达信 (TDX)-based broker clients. Identified by `证券代码`,
  one of `实际数量`, `证券数量`, `持仓数量` (shares held) and one of `参考成本价`, `成本价`
  (cost a share); 可卖数量, 当前价, 最新市值, 参考盈亏 and the rest are ignored. As for THS, the
  names are the ones those clients write; there is no published specification.
- `fidelity`: Fidelity's "Download positions" CSV (Portfolio Positions). Identified by `Symbol`,
  `Quantity` and `Average Cost Basis`; used also `Account Number` (the account unless --account
  is given). Money amounts may carry `$`, `+`, `,`; the core cash row (a symbol ending in `**`,
  e.g. `SPAXX**`) and `Pending Activity` are not positions and are skipped; the disclaimer after
  the first blank line is not read.

Chinese broker files are usually GBK, tab- or comma-separated, with a few summary lines (资金余额 ...)
before the header: the first 20 lines are searched for a header. Every file is read as UTF-8 (with
or without BOM), else GBK (GB18030). 6-digit codes take their exchange from their leading digits
(6/9 SH, 0/2/3 SZ, 4/8 BJ: the data context's rule). A row with quantity 0 (sold out today, still
listed by the broker clients) is skipped. Line numbers are the file's own, from 1.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import date

from stockdesk.portfolio.domain.errors import HoldingsFileInvalidError
from stockdesk.portfolio.domain.model import DEFAULT_ACCOUNT, MAX_PRICE, MAX_QUANTITY, NAME_PATTERN, Position

HEADER_SEARCH_LINES = 20
MAX_POSITIONS = 5000


@dataclass(frozen=True)
class Layout:
    """A header's column roles: each role lists the names that fill it (the first present wins)."""

    name: str
    symbol: tuple[str, ...]
    quantity: tuple[str, ...]
    cost_price: tuple[str, ...]
    account: tuple[str, ...] = ()
    opened_at: tuple[str, ...] = ()
    case_blind: bool = False


LAYOUTS = (
    Layout(
        "generic", ("symbol",), ("quantity",), ("cost_price",), ("account",), ("opened_at",), case_blind=True
    ),
    Layout("ths", ("证券代码",), ("股票余额",), ("成本价",)),
    Layout("tdx", ("证券代码",), ("实际数量", "证券数量", "持仓数量"), ("参考成本价", "成本价")),
    Layout("fidelity", ("Symbol",), ("Quantity",), ("Average Cost Basis",), ("Account Number",)),
)
SKIPPED_SYMBOLS = re.compile(r"^(.*\*\*|Pending Activity)$", re.IGNORECASE)


@dataclass(frozen=True)
class FileRow:
    """One position as the file states it, before its symbol is checked against the store."""

    line: int
    symbol: str
    quantity: float
    cost_price: float
    account: str
    opened_at: date | None


@dataclass(frozen=True)
class ReadFile:
    layout: str
    rows: list[FileRow]


def decode(data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise HoldingsFileInvalidError(None, "the file is neither UTF-8 nor GBK text")


def _cell(text: str) -> str:
    text = text.strip()
    if text.startswith('="') and text.endswith('"'):
        text = text[2:-1]
    return text.strip().strip('"').strip()


def _split(line: str) -> list[str]:
    delimiter = "\t" if "\t" in line else ","
    return [_cell(c) for c in next(csv.reader([line], delimiter=delimiter), [])]


def _index(cells: list[str], names: tuple[str, ...], case_blind: bool) -> int | None:
    keys = [c.casefold() for c in cells] if case_blind else cells
    for name in names:
        wanted = name.casefold() if case_blind else name
        if wanted in keys:
            return keys.index(wanted)
    return None


@dataclass(frozen=True)
class Columns:
    layout: Layout
    symbol: int
    quantity: int
    cost_price: int
    account: int | None
    opened_at: int | None


def _columns(layout: Layout, cells: list[str]) -> Columns | None:
    found = [
        _index(cells, names, layout.case_blind)
        for names in (layout.symbol, layout.quantity, layout.cost_price)
    ]
    if None in found:
        return None
    return Columns(
        layout,
        *found,  # type: ignore[arg-type]
        account=_index(cells, layout.account, layout.case_blind) if layout.account else None,
        opened_at=_index(cells, layout.opened_at, layout.case_blind) if layout.opened_at else None,
    )


def _missing(cells: list[str]) -> str | None:
    """What a header that names a symbol column lacks, for the layout it comes closest to."""
    best: tuple[int, Layout] | None = None
    for layout in LAYOUTS:
        roles = (layout.symbol, layout.quantity, layout.cost_price)
        have = sum(_index(cells, names, layout.case_blind) is not None for names in roles)
        if _index(cells, layout.symbol, layout.case_blind) is not None and (best is None or have > best[0]):
            best = (have, layout)
    if best is None:
        return None
    layout = best[1]
    roles = {"quantity": layout.quantity, "cost price": layout.cost_price}
    lacking = [
        " or ".join(names) for names in roles.values() if _index(cells, names, layout.case_blind) is None
    ]
    return f"the header has no {', '.join(repr(n) for n in lacking)} column ({layout.name} layout)"


def _header(lines: list[str]) -> tuple[int, Columns]:
    for number, line in enumerate(lines[:HEADER_SEARCH_LINES], start=1):
        cells = _split(line)
        for layout in LAYOUTS:
            if columns := _columns(layout, cells):
                return number, columns
    for number, line in enumerate(lines[:HEADER_SEARCH_LINES], start=1):
        if problem := _missing(_split(line)):
            raise HoldingsFileInvalidError(number, problem)
    raise HoldingsFileInvalidError(
        None,
        "no header of a known layout (symbol,quantity,cost_price; 同花顺 证券代码/股票余额/成本价; "
        "通达信 证券代码/实际数量/参考成本价; Fidelity Symbol/Quantity/Average Cost Basis)",
    )


def _number(text: str, what: str, line: int, most: float) -> float:
    cleaned = text.replace(",", "").replace("$", "").replace("¥", "").lstrip("+").strip()
    try:
        value = float(cleaned)
    except ValueError:
        raise HoldingsFileInvalidError(line, f"{what} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise HoldingsFileInvalidError(line, f"{what} {text!r} is not a finite number")
    if value < 0:
        raise HoldingsFileInvalidError(line, f"{what} {text!r} is negative")
    if value > most:
        raise HoldingsFileInvalidError(line, f"{what} {text!r} is more than {most:g}")
    return value


def _date(text: str, line: int) -> date | None:
    if not text:
        return None
    try:
        if re.fullmatch(r"\d{8}", text):
            return date(int(text[:4]), int(text[4:6]), int(text[6:]))
        return date.fromisoformat(text)
    except ValueError:
        raise HoldingsFileInvalidError(line, f"opened_at {text!r} is not a date (YYYY-MM-DD)") from None


def _get(cells: list[str], index: int | None) -> str:
    return cells[index] if index is not None and index < len(cells) else ""


def _row(cells: list[str], columns: Columns, line: int, account: str | None) -> FileRow | None:
    symbol = _get(cells, columns.symbol)
    if not symbol or SKIPPED_SYMBOLS.match(symbol):
        return None
    needed = max(columns.symbol, columns.quantity, columns.cost_price)
    if len(cells) <= needed:
        raise HoldingsFileInvalidError(line, f"{len(cells)} cells, the header has {needed + 1} or more")
    quantity = _number(cells[columns.quantity], "quantity", line, MAX_QUANTITY)
    if quantity == 0:
        return None
    cost = _number(cells[columns.cost_price], "cost price", line, MAX_PRICE)
    named = account or _get(cells, columns.account) or DEFAULT_ACCOUNT
    if not NAME_PATTERN.match(named):
        raise HoldingsFileInvalidError(
            line, f"account {named!r} is not a name (letters, digits, . _ - space)"
        )
    return FileRow(line, symbol, quantity, cost, named, _date(_get(cells, columns.opened_at), line))


def read_holdings(data: bytes, account: str | None = None) -> ReadFile:
    """The file's layout and rows (symbols as written); HoldingsFileInvalidError on the first problem."""
    lines = decode(data).splitlines()
    header_line, columns = _header(lines)
    rows: list[FileRow] = []
    for number, line in enumerate(lines[header_line:], start=header_line + 1):
        if not line.strip():
            if columns.layout.name == "fidelity":
                break  # the disclaimer follows the first blank line
            continue
        row = _row(_split(line), columns, number, account)
        if row is not None:
            rows.append(row)
        if len(rows) > MAX_POSITIONS:
            raise HoldingsFileInvalidError(number, f"more than {MAX_POSITIONS} positions")
    if not rows:
        raise HoldingsFileInvalidError(None, "the file has no positions")
    return ReadFile(columns.layout.name, rows)


def checked_positions(read: ReadFile, canonical: dict[str, str]) -> list[Position]:
    """The rows as positions, each symbol replaced by its stored symbol (`canonical`: as written ->
    stored); a symbol not there, or one (account, symbol) twice, is the error of its line."""
    seen: dict[tuple[str, str], int] = {}
    positions: list[Position] = []
    for row in read.rows:
        symbol = canonical.get(row.symbol)
        if symbol is None:
            raise HoldingsFileInvalidError(row.line, f"unknown symbol {row.symbol!r} (not in the store)")
        key = (row.account, symbol)
        if key in seen:
            raise HoldingsFileInvalidError(row.line, f"{symbol} is listed twice (first on line {seen[key]})")
        seen[key] = row.line
        positions.append(
            Position(
                account=row.account,
                symbol=symbol,
                quantity=row.quantity,
                cost_price=row.cost_price,
                opened_at=row.opened_at,
            )
        )
    return positions
