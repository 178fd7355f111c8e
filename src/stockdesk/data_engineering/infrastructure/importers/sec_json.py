"""SEC EDGAR JSON (`data.sec.gov`) -> canonical securities, filings and financial reports.

`submissions/CIK##########.json` gives the security (first ticker, name, SIC description as
industry) and the filing list; `companyfacts/CIK##########.json` gives XBRL facts, turned into one
financial report per 10-K/10-Q period and the stock splits the filings tag (see `sec_facts.py`).
Files are recognised by content, so the folder may hold the two subfolders or the JSON files
directly. One group per company (CIK): its files are validated and written together. Companyfacts
carry no ticker, so a CIK without its submissions file cannot be stored and comes back as a rejection.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.symbols import normalize_symbol
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.sec_facts import financial_reports, split_events
from stockdesk.shared.errors import BadRequestException

ARCHIVES = "https://www.sec.gov/Archives/edgar/data"


def read_sec_folder(folder: Path) -> list[ImportGroup]:
    """One group per company; companies that cannot be imported are left out (see `scan_sec_folder`)."""
    groups, _rejected = scan_sec_folder(folder)
    return groups


def scan_sec_folder(folder: Path) -> tuple[list[ImportGroup], list[ImportValidationError]]:
    """Groups to import, and the files rejected before import (unreadable, or no ticker known)."""
    if not folder.is_dir():
        raise ImportValidationError(str(folder), [RowProblem(row=None, reason="not a directory")])
    paths = sorted({*folder.glob("*.json"), *folder.glob("*/*.json")})
    by_cik: dict[str, dict[str, tuple[Path, dict[str, Any]]]] = defaultdict(dict)
    rejected: list[ImportValidationError] = []
    for path in paths:
        try:
            kind, cik, payload = _classify(path)
        except ImportValidationError as exc:
            rejected.append(exc)
            continue
        if kind:
            by_cik[cik][kind] = (path, payload)
    if not by_cik and not rejected:
        reason = (
            "no SEC companyfacts or submissions JSON (CIK##########.json) in the folder or its subfolders"
        )
        raise ImportValidationError(str(folder), [RowProblem(row=None, reason=reason)])
    groups: list[ImportGroup] = []
    for cik, files in sorted(by_cik.items()):
        try:
            groups.append(company_group(cik, files))
        except ImportValidationError as exc:
            rejected.append(exc)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            # a document whose shape is not EDGAR's (a list where an object belongs, ...)
            names = ", ".join(sorted(p.name for p, _ in files.values()))
            reason = f"unexpected JSON structure ({type(exc).__name__}: {exc})"
            rejected.append(
                ImportValidationError(f"SEC CIK{cik} [{names}]", [RowProblem(row=None, reason=reason)])
            )
    return groups, rejected


def _classify(path: Path) -> tuple[str | None, str, dict[str, Any]]:
    """('companyfacts' | 'submissions' | None, 10-digit CIK, payload), decided by the JSON's keys."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportValidationError(
            path.name, [RowProblem(row=None, reason=f"not readable JSON: {exc}")]
        ) from exc
    if not isinstance(payload, dict) or "cik" not in payload:
        return None, "", {}
    kind = "companyfacts" if "facts" in payload else "submissions" if "filings" in payload else None
    text = str(payload["cik"]).strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 10):
        reason = f"cik {payload['cik']!r} is not a CIK (up to 10 digits)"
        raise ImportValidationError(path.name, [RowProblem(row=None, reason=reason)])
    return kind, f"{int(text):010d}", payload


def company_group(cik: str, files: dict[str, tuple[Path, dict[str, Any]]]) -> ImportGroup:
    names = ", ".join(
        p.name if k == "submissions" else f"{k}/{p.name}" for k, (p, _) in sorted(files.items())
    )
    source = f"SEC CIK{cik} [{names}]"
    if "submissions" not in files:
        reason = f"no submissions JSON for CIK {cik}: companyfacts carry no ticker, so the symbol is unknown"
        raise ImportValidationError(source, [RowProblem(row=None, reason=reason)])
    submissions = files["submissions"][1]
    symbol = _symbol(submissions, source)
    source = f"{symbol} {source}"
    frames = {"securities": security(submissions, symbol, cik), "filings": filings(submissions, symbol, cik)}
    if "companyfacts" in files:
        frames["financials"] = financial_reports(files["companyfacts"][1], symbol)
        splits = split_events(files["companyfacts"][1], symbol)
        if len(splits):
            frames["splits"] = splits
    return ImportGroup(source=source, frames=frames)


def _symbol(submissions: dict[str, Any], source: str) -> str:
    listed = submissions.get("tickers")
    tickers = [t for t in listed if t] if isinstance(listed, list) else []
    if not tickers:
        raise ImportValidationError(source, [RowProblem(row=None, reason="submissions list no ticker")])
    try:
        return normalize_symbol(str(tickers[0]))
    except BadRequestException as exc:
        raise ImportValidationError(source, [RowProblem(row=None, reason=exc.message)]) from exc


def security(submissions: dict[str, Any], symbol: str, cik: str) -> pd.DataFrame:
    exchanges = [e for e in submissions.get("exchanges") or [] if e]
    row = {
        "symbol": symbol,
        "name": submissions.get("name"),
        "industry": submissions.get("sicDescription") or None,
        "market": "US",
        "exchange": exchanges[0] if exchanges else None,
        "currency": "USD",
        "list_date": None,
        "provider_codes": {"sec_cik": cik},
    }
    return pd.DataFrame([row])


def filings(submissions: dict[str, Any], symbol: str, cik: str) -> pd.DataFrame:
    """The `filings.recent` arrays as canonical filing rows with their EDGAR document URL."""
    recent = (submissions.get("filings") or {}).get("recent") or {}
    columns = ["accessionNumber", "filingDate", "reportDate", "form", "primaryDocument"]
    raw = pd.DataFrame({c: recent.get(c) for c in columns}).astype("string")
    if raw.empty:
        return pd.DataFrame(
            columns=["symbol", "accession_number", "form", "filed_date", "report_date", "url"]
        )
    folder = ARCHIVES + f"/{int(cik)}/" + raw["accessionNumber"].str.replace("-", "", regex=False) + "/"
    document = raw["primaryDocument"].fillna("").str.strip()
    url = folder + document.where(document != "", raw["accessionNumber"] + "-index.htm")
    out = pd.DataFrame(
        {
            "symbol": symbol,
            "accession_number": raw["accessionNumber"],
            "form": raw["form"],
            "filed_date": pd.to_datetime(raw["filingDate"], format="ISO8601", errors="coerce"),
            "report_date": pd.to_datetime(
                raw["reportDate"].replace("", pd.NA), format="ISO8601", errors="coerce"
            ),
            "url": url,
            "document_text": None,
        }
    )
    bad = out["filed_date"].isna() | out["accession_number"].isna() | out["form"].isna()
    if bad.any():
        problems = [
            RowProblem(row=int(i) + 1, reason=f"filing without accession number, form or filing date: {a}")
            for i, a in out.loc[bad, "accession_number"].items()
        ]
        raise ImportValidationError(f"{symbol} submissions", problems)
    return out
