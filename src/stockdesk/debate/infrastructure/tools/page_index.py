"""Per-page summary index of a filing (spec 5.5): one short LLM summary per 20,000-character page.

The embedded model reads at most `summary_input_chars` characters per call, so a longer page is
split into parts (page_parts), each part summarised, and one more call combines the part summaries
into the page's; a page within the limit takes one call. Every character of the page is read.

Computed once and cached as JSON under `<home>/cache/debate/filings_index/{ticker}_{accessionNoDash}.json`;
a later call (any run, any process) reads the file. A part or page the model could not summarise gets
an excerpt instead, and such an index is not cached, so the next call tries again.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.debate.infrastructure.tools.page_parts import split_page
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.shared.errors import LLMOutputParseError
from stockdesk.shared.files import write_atomic
from stockdesk.shared.prompts import PromptTemplates, load_prompts

logger = logging.getLogger(__name__)
CALLER = "debate.page_summary"
INDEX_DIR = ("debate", "filings_index")
EXCERPT_CHARS = 160
SUMMARY_MAX_CHARS = 300
# ~2k tokens per call: the embedded model (8k context shared with the answer) reads it in ~30 s
SUMMARY_INPUT_CHARS = 10_000
# written into the cache file; a file without it holds summaries of a page's first 6,000 characters
SUMMARY_VERSION = 2


class PageSummaryReply(BaseModel):
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX_CHARS)


@dataclass(frozen=True)
class SummaryPrompts:
    """`prompts/` for a page read in one call, `prompts/part` and `prompts/combine` for map and reduce."""

    page: PromptTemplates
    part: PromptTemplates
    combine: PromptTemplates

    @classmethod
    def load(cls, package: str) -> SummaryPrompts:
        return cls(
            page=load_prompts(package),
            part=load_prompts(package, "prompts/part"),
            combine=load_prompts(package, "prompts/combine"),
        )


def index_path(cache_dir: Path, ticker: str, accession_number: str) -> Path:
    """`cache_dir` is settings.cache_dir (`<home>/cache`)."""
    safe_ticker = re.sub(r"[^A-Za-z0-9._-]", "_", ticker)
    return cache_dir.joinpath(
        *INDEX_DIR, f"{safe_ticker}_{re.sub(r'[^0-9A-Za-z]', '', accession_number)}.json"
    )


class FilingPageIndex:
    def __init__(self, llm: LLMHandle, cache_dir: Path, *, summary_input_chars: int = SUMMARY_INPUT_CHARS):
        self._llm = llm
        self._cache_dir = cache_dir
        self._input_chars = summary_input_chars
        self._prompts = SummaryPrompts.load(__package__ or "")
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
                header = {  # the prompts' placeholders; accession_number is only logged
                    "ticker": filing["ticker"],
                    "accession_number": filing["accession_number"],
                    "form": filing["form"],
                    "filed_date": filing["filed_date"],
                    "page": number,
                    "total_pages": len(pages),
                }
                summary, whole = self._summarize_page(header, text)
                complete = complete and whole
                entries.append({"page": str(number), "page_summary": summary})
            if complete:
                self._write(path, filing, entries)
            return entries, False

    def _lock(self, path: Path) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(path, threading.Lock())

    def _summarize_page(self, header: dict[str, Any], text: str) -> tuple[str, bool]:
        """(summary, True), or a fallback and False when some call's answer could not be used."""
        parts = [p for p in split_page(text, self._input_chars) if p.strip()] or [text]
        if len(parts) == 1:
            summary = self._ask(self._prompts.page, {**header, "text": parts[0]}, f"page {header['page']}")
            return (summary, True) if summary is not None else (_excerpt(text), False)
        summaries, complete = [], True
        for number, part in enumerate(parts, 1):
            values = {**header, "part": number, "total_parts": len(parts), "text": part}
            summary = self._ask(self._prompts.part, values, f"page {header['page']} part {number}")
            complete = complete and summary is not None
            summaries.append(summary or _excerpt(part))
        listed = "\n".join(f"{n}. {s}" for n, s in enumerate(summaries, 1))
        combined = self._ask(self._prompts.combine, {**header, "summaries": listed}, f"page {header['page']}")
        if combined is None:
            return _clip("；".join(summaries)), False
        return combined, complete

    def _ask(self, prompts: PromptTemplates, values: dict[str, Any], what: str) -> str | None:
        """The model's one-line summary, or None when its answer cannot be parsed (or is blank)."""
        try:
            asked = self._llm.ask(
                prompts.render_user(**values), prompts.system, response_model=PageSummaryReply, caller=CALLER
            )
        except LLMOutputParseError as exc:
            logger.warning("%s of %s not summarised: %s", what, values["accession_number"], exc.message)
            return None
        return asked.parsed.summary.strip() or None

    @staticmethod
    def _read(path: Path, total_pages: int) -> list[dict[str, str]] | None:
        """The cached index, or None when missing, unreadable, of an older version or another page count."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entries = [
                {"page": str(e["page"]), "page_summary": str(e["page_summary"])} for e in data["index"]
            ]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if data.get("summary_version") != SUMMARY_VERSION:
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
            "summary_version": SUMMARY_VERSION,
            "index": entries,
        }
        write_atomic(path, json.dumps(payload, ensure_ascii=False, indent=1))  # never half an index


def _excerpt(text: str) -> str:
    return _clip(" ".join(text.split()), EXCERPT_CHARS)


def _clip(text: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    """`text` cut to at most `limit` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
