"""SEC EDGAR (US; needs SEC_USER_AGENT) over httpx: company facts, submissions, ticker -> CIK.

Endpoints (SEC asks for a User-Agent naming a contact and at most 10 requests per second):
- `https://www.sec.gov/files/company_tickers.json` -> {"0": {"cik_str": 320193, "ticker": "AAPL",
  "title": "Apple Inc."}, ...}
- `https://data.sec.gov/submissions/CIK##########.json` -> cik, name, sicDescription, tickers,
  exchanges, filings.recent.{accessionNumber, form, filingDate, reportDate, primaryDocument}
- `https://data.sec.gov/api/xbrl/companyfacts/CIK##########.json` -> facts.{us-gaap,dei}.<concept>.units
- `https://www.sec.gov/Archives/edgar/data/<cik>/<accession without dashes>/<primaryDocument>` -> a
  filing's HTML document (the URL `importers/sec_json.py: filings` stores), turned into clean text
  pages by `importers/filing_document.py` like `data import filing-doc` does.
This module only fetches: the conversion is the file importer's (`importers/sec_json.py: security`
for submissions, `importers/sec_facts.py: financial_reports` for companyfacts), so a synced company
and an imported one are stored alike. Bars and valuations are not SEC's: they come back empty
(the sync then derives valuations from prices and these reports).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import date
from typing import Any

import httpx
import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.domain.ports import IMarketDataProvider
from stockdesk.data_engineering.infrastructure.importers.filing_document import (
    PAGE_COLUMNS,
    normalize_accession,
    pages_frame,
)
from stockdesk.data_engineering.infrastructure.importers.html_text import decode_html, html_to_text
from stockdesk.data_engineering.infrastructure.importers.sec_facts import financial_reports
from stockdesk.data_engineering.infrastructure.importers.sec_json import security as submissions_to_security
from stockdesk.data_engineering.infrastructure.providers.common import empty, with_rows
from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.data_engineering.infrastructure.providers.resilience import CallPolicy, ProviderCaller
from stockdesk.shared.errors import ConfigurationError

USER_AGENT_ENV = "SEC_USER_AGENT"
REQUESTS_PER_SECOND = 10.0
DATA_URL = "https://data.sec.gov"
TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"


class SecEdgarProvider(IMarketDataProvider):
    """`transport` lets tests answer with fixture JSON (httpx.MockTransport); None = the network."""

    name = "sec"
    markets = ("US",)

    def __init__(
        self,
        user_agent: str | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
        policy: CallPolicy | None = None,
        limiter: TokenBucket | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        agent = user_agent or os.environ.get(USER_AGENT_ENV)
        if not agent:
            raise ConfigurationError(
                f"{USER_AGENT_ENV} is not set: SEC EDGAR requires a contact, e.g. "
                f"export {USER_AGENT_ENV}='Your Name you@example.com'"
            )
        self.policy = policy or CallPolicy()
        self.client = httpx.Client(
            transport=transport,
            headers={"User-Agent": agent, "Accept-Encoding": "gzip, deflate"},
            timeout=self.policy.timeout,
            follow_redirects=True,
        )
        self.call = ProviderCaller(
            self.name, limiter or TokenBucket(REQUESTS_PER_SECOND, 1.0), self.policy, sleep=sleep
        )
        self._ciks: dict[str, str] | None = None

    def _get(self, url: str) -> Any:
        response = self.client.get(url)
        response.raise_for_status()
        return response.json()

    def get_json(self, url: str) -> Any:
        return self.call(f"GET {url.split('.gov', 1)[-1]}", self._get, url)

    def _get_bytes(self, url: str) -> bytes:
        response = self.client.get(url)
        response.raise_for_status()
        return response.content

    def filing_document(self, symbol: str, accession: str, url: str) -> pd.DataFrame:
        """One filing document as `filing_pages` rows (symbol, accession_number, page_no, text)."""
        accession_number = normalize_accession(accession)  # a bad one fails before any request
        raw = self.call(f"GET {url.split('.gov', 1)[-1]}", self._get_bytes, url)
        text = html_to_text(decode_html(raw))
        if not text:
            return empty(PAGE_COLUMNS)
        return with_rows(pages_frame(symbol, accession_number, text))

    def cik(self, symbol: str) -> str:
        """Ten-digit CIK of a ticker (company_tickers.json, fetched once per provider)."""
        if self._ciks is None:
            table = self.get_json(TICKERS_URL)
            self._ciks = {str(r["ticker"]).upper(): f"{int(r['cik_str']):010d}" for r in table.values()}
        code = symbol.upper().replace(".", "-")
        if code not in self._ciks:
            raise ProviderUnavailableError(f"sec: no CIK for ticker {symbol} in company_tickers.json")
        return self._ciks[code]

    def submissions(self, symbol: str) -> dict[str, Any]:
        return self.get_json(f"{DATA_URL}/submissions/CIK{self.cik(symbol)}.json")

    def companyfacts(self, symbol: str) -> dict[str, Any]:
        return self.get_json(f"{DATA_URL}/api/xbrl/companyfacts/CIK{self.cik(symbol)}.json")

    def security(self, symbol: str) -> pd.DataFrame:
        return with_rows(submissions_to_security(self.submissions(symbol), symbol, self.cik(symbol)))

    def bars(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        return empty(F.BAR_COLUMNS)

    def valuations(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        return empty(F.VALUATION_COLUMNS)

    def financials(self, symbol: str) -> pd.DataFrame:
        frame = financial_reports(self.companyfacts(symbol), symbol)
        return with_rows(frame) if len(frame) else empty(F.FINANCIAL_COLUMNS)
