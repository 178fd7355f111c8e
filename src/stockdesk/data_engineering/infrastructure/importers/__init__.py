"""File importers: turn provider exports into canonical frames (see `domain/frames.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class ImportGroup:
    """Frames that are validated and written together (one transaction)."""

    source: str
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
