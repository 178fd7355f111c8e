"""Digests and a settings file for the notification tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from stockdesk.notifications.application import ChangeKind, Digest, DigestChange, DigestRow
from stockdesk.notifications.container import NotificationsContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database


def digest(
    lang: str = "en", rows: int = 3, run: str = "run-1", url: str | None = "https://desk.example/r/1"
) -> Digest:
    name = "贵州茅台" if lang == "zh" else "Kweichow Moutai"
    return Digest(
        title="自选股" if lang == "zh" else "Core watchlist",
        as_of=date(2026, 11, 27),
        run=run,
        language=lang,  # type: ignore[arg-type]
        changes=[
            DigestChange(kind=ChangeKind.NEW_BUY, symbol="600519", name=name, before="HOLD", after="BUY"),
            DigestChange(kind=ChangeKind.HELD_EXIT, symbol="000001", name="", before="HOLD", after="EXIT"),
            DigestChange(
                kind=ChangeKind.STOP_CROSSED, symbol="AAPL", after="HOLD", level=180.0, price=178.52
            ),
        ],
        rows=[
            DigestRow(
                symbol=f"{600000 + i}", name=name, action="BUY" if i % 2 else "HOLD",
                probability=0.61 if i % 2 else None, sample_size=120 if i % 2 else None,
                close=1500.0 + i, change_pct=1.25, stop=1400.0, target=1700.0,
            )
            for i in range(rows)
        ],
        report_url=url,
    )  # fmt: skip


def write_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str) -> Settings:
    path = tmp_path / "stockdesk.toml"
    path.write_text(toml, encoding="utf-8")
    monkeypatch.setenv("STOCKDESK_CONFIG", str(path))
    return Settings()


def container(settings: Settings) -> NotificationsContainer:
    return NotificationsContainer(settings, Database(settings.effective_database_url), sleep=lambda _s: None)
