"""`--universe FILE`: plain symbol lists, CSVs with a symbol column (the screen's output), one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.universe import read_universe


def written(tmp_path: Path, text: str, name: str = "u.txt", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_one_symbol_per_line_with_blanks_comments_and_repeats(tmp_path: Path) -> None:
    path = written(tmp_path, "# watch list\n600519.SH\n\n  000001.SZ  # bank\nAAPL\n600519.SH\n")
    assert read_universe(path) == ["600519.SH", "000001.SZ", "AAPL"]  # order kept, repeat dropped


def test_comma_separated_lines_are_read_too(tmp_path: Path) -> None:
    assert read_universe(written(tmp_path, "000338.SZ,000001.SZ\n601318.SH\n")) == [
        "000338.SZ",
        "000001.SZ",
        "601318.SH",
    ]


def test_a_csv_with_a_symbol_column_gives_that_column(tmp_path: Path) -> None:
    text = "symbol,name,market,pe_ttm\n000338.SZ,潍柴动力,CN,12.53\n000001.SZ,平安银行,CN,\n"
    assert read_universe(written(tmp_path, text, "s.csv")) == ["000338.SZ", "000001.SZ"]


def test_the_symbol_column_may_stand_anywhere_in_any_case_after_a_bom(tmp_path: Path) -> None:
    text = "name, Symbol \n潍柴动力,000338.SZ\n,\n平安银行,000001.SZ\n"
    assert read_universe(written(tmp_path, text, "s.csv", "utf-8-sig")) == ["000338.SZ", "000001.SZ"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "no such file"),
        ("", "names no symbol"),
        ("# only a comment\n\n", "names no symbol"),
        ("symbol,name\n", "names no symbol"),
    ],
)
def test_bad_files_are_one_line_errors_naming_the_file(
    tmp_path: Path, content: str | None, words: str
) -> None:
    path = tmp_path / "universe.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(BadRequestException) as caught:
        read_universe(path)
    message = caught.value.message
    assert words in message and str(path) in message and "\n" not in message
    assert caught.value.http_status == 400
