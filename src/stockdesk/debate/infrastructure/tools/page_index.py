"""Per-page summary index of a filing (spec 5.5): one short LLM summary per 20,000-character page.

Computed once and cached as JSON under `<home>/cache/debate/filings_index/{ticker}_{accessionNoDash}.json`;
a later call (any run, any process) reads the file. A page the model could not summarise gets an
excerpt instead, and such an index is not cached, so the next call tries again.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.debate.domain.ports.llm_port import ILLMPort
from stockdesk.llm_platform.application.structured_output import parse_structured
from stockdesk.shared.errors import LLMOutputParseError
from stockdesk.shared.prompts import load_prompts

logger = logging.getLogger(__name__)
CALLER = "debate.page_summary"
INDEX_DIR = ("debate", "filings_index")
EXCERPT_CHARS = 160
# the embedded model reads ~2k tokens of a page in reasonable time; the rest of the page is not sent
SUMMARY_INPUT_CHARS = 6000


class PageSummaryReply(BaseModel):
    summary: str = Field(min_length=1, max_length=300)


def index_path(cache_dir: Path, ticker: str, accession_number: str) -> Path:
    """`cache_dir` is settings.cache_dir (`<home>/cache`)."""
    safe_ticker = re.sub(r"[^A-Za-z0-9._-]", "_", ticker)
    return cache_dir.joinpath(
        *INDEX_DIR, f"{safe_ticker}_{re.sub(r'[^0-9A-Za-z]', '', accession_number)}.json"
    )


class FilingPageIndex:
    def __init__(self, llm: ILLMPort, cache_dir: Path, *, summary_input_chars: int = SUMMARY_INPUT_CHARS):
        self._llm = llm
        self._cache_dir = cache_dir
        self._input_chars = summary_input_chars
        self._prompts = load_prompts(__package__ or "")
        self._locks: dict[Path, threading.Lock] = {}
        self._guard = threading.Lock()

    def index(self, filing: dict[str, Any], pages: list[str]) -> tuple[list[dict[str, str]], bool]:
        """([{page, page_summary}], cached) for `filing` ({ticker, accession_number, form, filed_date})."""
        if not pages:
            return [], False
        path = index_path(self._cache_dir, filing["ticker"], filing["accession_number"])
        with self._lock(path):
            stored = self._read(path, len(pages))
            if stored is not None:
                return stored, True
            entries, complete = [], True
            for number, text in enumerate(pages, 1):
                summary = self._summarize(filing, number, len(pages), text)
                complete = complete and summary is not None
                entries.append({"page": str(number), "page_summary": summary or _excerpt(text)})
            if complete:
                self._write(path, filing, entries)
            return entries, False

    def _lock(self, path: Path) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(path, threading.Lock())

    def _summarize(self, filing: dict[str, Any], page: int, total: int, text: str) -> str | None:
        prompt = self._prompts.render_user(
            ticker=filing["ticker"],
            form=filing["form"],
            filed_date=filing["filed_date"],
            page=page,
            total_pages=total,
            text=text[: self._input_chars],
        )
        try:
            reply = self._llm.generate(
                prompt, self._prompts.system, response_model=PageSummaryReply, caller=CALLER
            )
            parsed = reply.parsed
            if not isinstance(parsed, PageSummaryReply):
                parsed = parse_structured(reply.text, PageSummaryReply)
        except LLMOutputParseError as exc:
            logger.warning("page %s of %s not summarised: %s", page, filing["accession_number"], exc.message)
            return None
        assert isinstance(parsed, PageSummaryReply)
        return parsed.summary.strip()

    @staticmethod
    def _read(path: Path, total_pages: int) -> list[dict[str, str]] | None:
        """The cached index, or None when missing, unreadable or made for another page count."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entries = [
                {"page": str(e["page"]), "page_summary": str(e["page_summary"])} for e in data["index"]
            ]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return entries if data.get("total_pages") == total_pages == len(entries) else None

    @staticmethod
    def _write(path: Path, filing: dict[str, Any], entries: list[dict[str, str]]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "ticker": filing["ticker"],
            "accession_number": filing["accession_number"],
            "form": filing["form"],
            "filed_date": filing["filed_date"],
            "total_pages": len(entries),
            "index": entries,
        }
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
        temporary.replace(path)  # readers never see a half-written index


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[:EXCERPT_CHARS].rstrip() + "…"
