"""Holdings files: each layout detected from its header and read (encodings, separators, the brokers'
extra lines), and a damaged file (a bad number, an unknown symbol, a missing column, a symbol twice)
is one error naming its line with nothing written."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from stockdesk.portfolio.application import HoldingsFileInvalidError, read_holdings
from stockdesk.portfolio.container import PortfolioContainer
from tests.portfolio.support import FIXTURES


def positions(portfolio: PortfolioContainer) -> dict[tuple[str, str], tuple[float, float, date | None]]:
    return {
        (p.account, p.symbol): (p.quantity, p.cost_price, p.opened_at) for p in portfolio.holdings.stored()
    }


def test_generic_csv(portfolio: PortfolioContainer) -> None:
    result = portfolio.holdings.import_file((FIXTURES / "generic.csv").read_bytes())
    assert (result.layout, result.positions, result.accounts) == ("generic", 3, ["main", "us"])
    assert positions(portfolio) == {
        ("main", "600001.SH"): (1000, 9.5, date(2024, 1, 15)),
        ("main", "000002.SZ"): (500, 12.0, None),
        ("us", "AAPL"): (10, 150.25, date(2024, 6, 28)),
    }


def test_ths_export_gbk_tab_separated(portfolio: PortfolioContainer) -> None:
    data = (FIXTURES / "ths_positions.xls.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # the fixture is GBK, as the client writes it
    result = portfolio.holdings.import_file(data, account="ths")
    assert (result.layout, result.positions) == ("ths", 2)  # the sold-out 300999 row (0 shares) is skipped
    assert positions(portfolio) == {
        ("ths", "600001.SH"): (1200, 10.215, None),
        ("ths", "000002.SZ"): (300, 8.8, None),
    }


def test_tdx_export_with_summary_lines_and_excel_text_codes(portfolio: PortfolioContainer) -> None:
    result = portfolio.holdings.import_file((FIXTURES / "tdx_positions.csv").read_bytes())
    assert (result.layout, result.accounts) == ("tdx", ["default"])
    assert positions(portfolio) == {
        ("default", "600001.SH"): (2000, 9.8, None),
        ("default", "000002.SZ"): (400, 10.5, None),
    }


def test_fidelity_positions_skip_cash_pending_and_disclaimer(portfolio: PortfolioContainer) -> None:
    result = portfolio.holdings.import_file((FIXTURES / "fidelity_positions.csv").read_bytes())
    assert (result.layout, result.positions, result.accounts) == ("fidelity", 1, ["Z12345678"])
    assert positions(portfolio) == {("Z12345678", "AAPL"): (25, 150.0, None)}


def test_a_utf8_ths_file_reads_the_same() -> None:
    text = (FIXTURES / "ths_positions.xls.txt").read_bytes().decode("gbk")
    assert read_holdings(("\ufeff" + text).encode("utf-8")).layout == "ths"


def damaged(line7: str) -> bytes:
    """A generic file whose 7th line is `line7` (lines 2-6 good, in two accounts)."""
    rows = ["symbol,quantity,cost_price,account"]
    rows += [f"600001.SH,100,10,a{i}" for i in range(5)]
    rows += [line7, "000002.SZ,100,10,z"]
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        (damaged("000002.SZ,1O0,10,b"), 7, "quantity '1O0' is not a number"),
        (damaged("000002.SZ,100,abc,b"), 7, "cost price 'abc' is not a number"),
        (damaged("000002.SZ,-5,10,b"), 7, "negative"),
        (damaged("000002.SZ,1e300,10,b"), 7, "more than 1e+12"),
        (damaged("999999.SH,100,10,b"), 7, "unknown symbol '999999.SH'"),
        (damaged("600001.SH,100,10,a4"), 7, "600001.SH is listed twice (first on line 6)"),
        (damaged("000002.SZ,100"), 7, "2 cells"),
        (b"symbol,quantity,price\n600001.SH,1,1\n", 1, "no 'cost_price' column"),
        ("证券代码\t证券名称\t股票余额\n600001\tx\t100\n".encode("gbk"), 1, "'成本价' column"),
        (b"symbol,quantity,cost_price\n", None, "no positions"),
        (b"date,open,close\n2024-01-01,1,2\n", None, "no header of a known layout"),
        (b"\xff\xfe\x00s\x00y", None, "neither UTF-8 nor GBK"),
    ],
)
def test_a_damaged_file_names_its_line_and_writes_nothing(
    portfolio: PortfolioContainer, data: bytes, line: int | None, words: str
) -> None:
    portfolio.holdings.set("AAPL", 1, 100, account="kept")
    with pytest.raises(HoldingsFileInvalidError) as caught:
        portfolio.holdings.import_file(data, replace=True)
    assert caught.value.line == line
    assert words in caught.value.message
    assert (f"line {line}:" in caught.value.message) == (line is not None)
    assert "\n" not in caught.value.message
    assert caught.value.code == "HOLDINGS_FILE_INVALID"
    assert positions(portfolio) == {("kept", "AAPL"): (1, 100, None)}  # nothing written or replaced


def test_reimport_is_idempotent_and_replace_drops_what_the_file_lacks(portfolio: PortfolioContainer) -> None:
    data = (FIXTURES / "generic.csv").read_bytes()
    portfolio.holdings.import_file(data)
    first = positions(portfolio)
    portfolio.holdings.import_file(data)
    assert positions(portfolio) == first
    portfolio.holdings.set("600003.SH", 5, 5, account="main")
    portfolio.holdings.import_file(data)
    assert ("main", "600003.SH") in positions(portfolio)  # without --replace: kept
    portfolio.holdings.import_file(data, replace=True)
    assert positions(portfolio) == first


def test_every_fixture_names_its_layout_in_the_module_docstring() -> None:
    from stockdesk.portfolio.application import holdings_import

    doc = holdings_import.__doc__ or ""
    for layout in holdings_import.LAYOUTS:
        assert f"`{layout.name}`" in doc
        for column in (*layout.symbol, *layout.quantity, *layout.cost_price):
            assert f"`{column}`" in doc
    assert {p.name for p in Path(FIXTURES).iterdir()} >= {"generic.csv", "tdx_positions.csv"}
