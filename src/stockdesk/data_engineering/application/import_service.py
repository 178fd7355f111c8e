"""Import canonical frames: validate everything first, then write one source in one transaction."""

from __future__ import annotations

import logging

import pandas as pd
from pydantic import BaseModel, Field

from stockdesk.data_engineering.application.intraday_import import validate_intraday_frame
from stockdesk.data_engineering.application.validation import ROW, VALIDATORS
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.ports import IMarketDataRepository

logger = logging.getLogger(__name__)
# every table's validator; 5-minute bars get the intraday file checks (intraday_import.py)
TABLE_VALIDATORS = {**VALIDATORS, "bars_5m": validate_intraday_frame}


class ImportResult(BaseModel):
    source: str
    rows: dict[str, int] = Field(default_factory=dict, description="rows written per table")
    new_rows: dict[str, int] = Field(default_factory=dict, description="rows that did not exist before")


class MarketDataImportService:
    def __init__(self, repository: IMarketDataRepository):
        self._repository = repository

    def validate(self, frames: dict[str, pd.DataFrame]) -> tuple[dict[str, pd.DataFrame], list[RowProblem]]:
        problems: list[RowProblem] = []
        clean: dict[str, pd.DataFrame] = {}
        for kind, frame in frames.items():
            if frame is None or frame.empty:
                continue
            validator = TABLE_VALIDATORS.get(kind)
            if validator is None:
                clean[kind] = frame
                continue
            checked, found = validator(frame)
            problems.extend(found)
            clean[kind] = checked.drop(columns=[ROW], errors="ignore")
        return clean, problems

    def import_frames(self, source: str, frames: dict[str, pd.DataFrame]) -> ImportResult:
        """All or nothing: any problem rejects the whole source with every reason."""
        clean, problems = self.validate(frames)
        if problems:
            logger.warning("import of %s rejected: %d problem(s)", source, len(problems))
            raise ImportValidationError(source, problems)
        before = self._repository.counts()
        try:
            written = self._repository.write_batch(clean)
        except ImportValidationError as exc:  # refused by the store itself: name the source
            raise ImportValidationError(source, exc.problems) from exc
        after = self._repository.counts()
        result = ImportResult(
            source=source, rows=written, new_rows={k: after[k] - before.get(k, 0) for k in written}
        )
        logger.info("imported %s: %s", source, result.rows)
        return result
