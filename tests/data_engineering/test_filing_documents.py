"""Filing documents: HTML -> clean text without XBRL noise, pages of at most 20,000 characters,
`data import filing-doc`, and the SEC provider's document fetch."""

from __future__ import annotations

import json
from datetime import date
from itertools import pairwise
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.infrastructure.importers.filing_document import (
    PAGE_CHARS,
    normalize_accession,
    read_filing_document,
    split_pages,
)
from stockdesk.data_engineering.infrastructure.importers.html_text import html_to_text, merge_cells
from stockdesk.data_engineering.infrastructure.importers.sec_json import filings
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.providers.sec_provider import SecEdgarProvider
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException
from tests.data_engineering.provider_fakes import FAST, SecFixtureServer, fast_limiter, no_sleep

TEN_K = Path(__file__).parent / "fixtures" / "filings" / "xmpl-10-k-2024.html"  # inline XBRL, Workiva-like
ACCESSION = "0000054321-24-000077"


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def pages_of(repository: SqlMarketDataRepository) -> pd.DataFrame:
    return pd.concat(list(repository.table_frames("filing_pages")))


# ---- HTML -> text ----------------------------------------------------------------------------------
def test_html_text_reads_like_the_filing_without_xbrl_noise() -> None:
    text = html_to_text(TEN_K.read_text(encoding="ascii"))
    paragraphs = text.split("\n\n")
    assert paragraphs[:6] == [
        "UNITED STATES",
        "SECURITIES AND EXCHANGE COMMISSION",
        "Washington, D.C. 20549",  # &#160; is a space
        "FORM 10-K",  # the inline fact's text stays
        "Example Widgets, Inc.",
        "California | 94-0000000\n(State or other jurisdiction of incorporation) | "
        "(I.R.S. Employer Identification No.)",
    ]
    assert (
        "The Company designs, manufactures and markets widgets and related services. The Company’s "
        "fiscal year is the 52- or 53-week period that ends on the last Saturday of September."
    ) in paragraphs  # source line breaks inside a paragraph are spaces
    assert (
        "Years ended | September 28, 2024 | September 30, 2023\n"
        "Net sales | $1,234 | $1,100\n"
        "Other income/(expense), net | (12) | 7\n"
        "Gross margin percentage | 42.5% | 41.0%"
    ) in paragraphs
    assert paragraphs[-1] == (
        "The Company’s business depends on a small number of suppliers of widget springs.\n"
        "A supply interruption could delay shipments."
    )
    for noise in ("AmendmentFlag", "0000054321", "xbrli", "2023-10-01", "do not index me", "color:",
                  "xmpl-20240928", "hidden marketing copy"):  # fmt: skip
        assert noise not in text
    assert "  " not in text and "\n\n\n" not in text and text == text.strip()


def test_merge_cells_joins_currency_signs_and_closing_marks() -> None:
    assert merge_cells(["Net income", "$", "93,736", "(565", ")", "2", "%"]) == [
        "Net income", "$93,736", "(565)", "2%",
    ]  # fmt: skip
    assert merge_cells([")", "$"]) == [")", "$"]  # nothing to attach to: kept as they are


# ---- pages -----------------------------------------------------------------------------------------
def test_pages_break_between_paragraphs_and_keep_every_character() -> None:
    paragraphs = [f"Paragraph {i} " + "x" * (40 + i) for i in range(30)]
    text = "\n\n".join(paragraphs)
    pages = split_pages(text, max_chars=200)
    assert all(len(page) <= 200 for page in pages)
    assert "\n\n".join(pages) == text  # only paragraph breaks were used
    assert all(page.startswith("Paragraph ") for page in pages)
    for page, following in pairwise(pages):  # pages are full: the next paragraph
        assert len(page) + 2 + len(following.split("\n\n")[0]) > 200  # would not have fitted


def test_a_paragraph_longer_than_a_page_breaks_at_lines_then_words() -> None:
    lines = "\n".join(f"row {i} | {i * 1000:,}" for i in range(40))  # one table: ~700 characters
    words = " ".join(f"word{i}" for i in range(200))  # one long sentence
    pages = split_pages(f"Intro\n\n{lines}\n\n{words}", max_chars=250)
    assert all(len(page) <= 250 for page in pages)
    assert pages[0] == "Intro" and pages[1].startswith("row 0 | 0\nrow 1 | 1,000\n")  # table: a new page
    assert all(not page.startswith((" ", "\n")) for page in pages)
    assert " ".join(" ".join(pages).split()) == " ".join(f"Intro {lines} {words}".split())
    assert any(page.endswith("row 39 | 39,000") or "row 39 | 39,000\n" in page for page in pages)
    assert split_pages("z" * 45, max_chars=20) == ["z" * 20, "z" * 20, "z" * 5]  # no break at all


def test_a_long_document_is_split_into_numbered_pages(tmp_path: Path) -> None:
    body = "".join(f"<div><span>Section {i}. {'Risk factor text. ' * 60}</span></div>" for i in range(60))
    html = tmp_path / "long.htm"
    html.write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    document = read_filing_document(html, "XMPL", ACCESSION)
    pages = document.group.frames["filing_pages"]
    assert document.characters > 3 * PAGE_CHARS and document.pages == len(pages) == 4
    assert pages["page_no"].tolist() == [1, 2, 3, 4]
    assert (pages["text"].str.len() <= PAGE_CHARS).all()
    assert pages["text"].str.startswith("Section ").all()  # every page starts a paragraph
    assert "filings" not in document.group.frames  # no form/filed: no filing row


def test_accession_numbers_are_normalised() -> None:
    assert normalize_accession("000005432124000077") == ACCESSION
    assert normalize_accession(f" {ACCESSION} ") == ACCESSION
    with pytest.raises(BadRequestException, match="not an accession number"):
        normalize_accession("54321-24-77")


# ---- import --------------------------------------------------------------------------------------
def test_import_writes_pages_and_the_filing_row_and_a_rerun_adds_nothing(
    repository: SqlMarketDataRepository,
) -> None:
    service = MarketDataImportService(repository)
    url = "https://www.sec.gov/Archives/edgar/data/54321/000005432124000077/xmpl-20240928.htm"
    document = read_filing_document(
        TEN_K, "xmpl", "000005432124000077", form="10-k", filed=date(2024, 11, 1), url=url
    )
    first = service.import_frames(document.group.source, document.group.frames)
    assert first.new_rows == {"securities": 1, "filing_pages": 1, "filings": 1}
    [filing] = repository.get_filings("XMPL", date(2024, 11, 1))
    assert (filing.accession_number, filing.form, filing.filed_date, filing.url) == (
        ACCESSION, "10-K", date(2024, 11, 1), url,
    )  # fmt: skip
    assert repository.get_filings("XMPL", date(2024, 10, 31)) == []  # not visible before it was filed
    page = pages_of(repository).iloc[0]
    assert (page["symbol"], page["accession_number"], page["page_no"]) == ("XMPL", ACCESSION, 1)
    assert "Net sales | $1,234 | $1,100" in page["text"]
    again = service.import_frames(document.group.source, document.group.frames)
    assert again.new_rows == {"securities": 0, "filing_pages": 0, "filings": 0}
    assert len(pages_of(repository)) == 1


def test_import_options_must_come_together(tmp_path: Path) -> None:
    with pytest.raises(BadRequestException, match="--form and --filed together"):
        read_filing_document(TEN_K, "XMPL", ACCESSION, form="10-K")
    with pytest.raises(BadRequestException, match="--url"):
        read_filing_document(TEN_K, "XMPL", ACCESSION, url="https://www.sec.gov/x.htm")
    empty = tmp_path / "empty.htm"
    empty.write_text("<html><head><title>t</title></head><body><script>x()</script></body></html>")
    with pytest.raises(BadRequestException, match="no text in the document"):
        read_filing_document(empty, "XMPL", ACCESSION)


# ---- the command -----------------------------------------------------------------------------------


def test_cli_filing_doc_stores_searchable_pages(cli_app: typer.Typer, database: Database) -> None:
    runner = CliRunner()
    args = ["data", "import", "filing-doc", str(TEN_K), "--symbol", "XMPL", "--accession", ACCESSION]
    bare = runner.invoke(cli_app, args)
    assert bare.exit_code == 0, bare.output
    assert "pages: 1" in bare.stdout and "filing row: missing" in bare.stdout
    assert "not searchable until one exists" in bare.output
    full = runner.invoke(cli_app, [*args, "--form", "10-K", "--filed", "2024-11-01", "--json"])
    assert full.exit_code == 0, full.output
    facts = json.loads(full.stdout)
    assert (facts["pages"], facts["new_pages"], facts["filing_row"]) == (1, 0, "written")
    repository = SqlMarketDataRepository(database)
    hits = repository.search_text(
        "widget springs", symbol="XMPL", start=None, end=date(2024, 12, 31), limit=5
    )
    assert [(h.kind, h.symbol) for h in hits] == [("filing", "XMPL")]
    assert hits[0].published_at.date() == date(2024, 11, 1)  # the filing date
    late = repository.search_text(
        "widget springs", symbol="XMPL", start=None, end=date(2024, 10, 31), limit=5
    )
    assert late == []  # point in time: the 10-K was filed on 2024-11-01


def test_cli_filing_doc_rejects_a_bad_date(cli_app: typer.Typer) -> None:
    args = ["data", "import", "filing-doc", str(TEN_K), "--symbol", "XMPL", "--accession", ACCESSION]
    result = CliRunner().invoke(cli_app, [*args, "--form", "10-K", "--filed", "1 Nov 2024"])
    assert result.exit_code != 0 and isinstance(result.exception, BadRequestException)
    assert "is not a date" in result.exception.message


# ---- the SEC provider ------------------------------------------------------------------------------
def sec(server: SecFixtureServer) -> SecEdgarProvider:
    agent = "stockdesk tests tests@example.com"
    return SecEdgarProvider(
        agent, transport=server.transport, policy=FAST, limiter=fast_limiter(), sleep=no_sleep
    )


def test_sec_provider_fetches_a_filing_document_as_pages(repository: SqlMarketDataRepository) -> None:
    server = SecFixtureServer()
    provider = sec(server)
    submissions = provider.submissions("EXMP")
    listed = filings(submissions, "EXMP", provider.cik("EXMP"))
    ten_k = listed[listed["form"] == "10-K"].iloc[0]
    assert ten_k["url"] == (
        "https://www.sec.gov/Archives/edgar/data/123/000000012323000106/exmp-20230930.htm"
    )  # built by the importer from submissions' primaryDocument
    calls = provider.call.calls
    pages = provider.filing_document("EXMP", ten_k["accession_number"], ten_k["url"])
    assert provider.call.calls == calls + 1  # one rate-limited call through the provider's caller
    request = server.requests[-1]
    assert request.url.path == "/Archives/edgar/data/123/000000012323000106/exmp-20230930.htm"
    assert request.headers["User-Agent"] == "stockdesk tests tests@example.com"
    assert pages[["symbol", "accession_number", "page_no"]].values.tolist() == [
        ["EXMP", "0000000123-23-000106", 1]
    ]
    text = pages["text"].iloc[0]
    assert text.startswith("FORM 10-K\n\nExample Corporation\n\nItem 1. Business")
    assert "Net sales | $4,210 | $3,905" in text and "0000000123" not in text
    MarketDataImportService(repository).import_frames(
        "sec", {"filings": listed, "filing_pages": pages}
    )  # stored alike with `data import filing-doc`
    assert pages_of(repository)["text"].tolist() == [text]


def test_sec_provider_document_errors() -> None:
    server = SecFixtureServer()
    provider = sec(server)
    missing = "https://www.sec.gov/Archives/edgar/data/123/000000012323000106/nope.htm"
    with pytest.raises(ProviderUnavailableError, match="404"):
        provider.filing_document("EXMP", "0000000123-23-000106", missing)
    before = len(server.requests)
    with pytest.raises(BadRequestException, match="not an accession number"):
        provider.filing_document("EXMP", "123", missing)
    assert len(server.requests) == before  # rejected before any request
