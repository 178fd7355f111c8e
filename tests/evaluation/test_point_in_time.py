"""Point in time: what the desk sees for date D does not depend on what the store learned after D.

Two stores: one holds the whole generated market (prices to mid-2024, every report version, news
after D), the other only what was published by D (bars and valuations up to D, report versions
announced by D, news published by D). For each D, every expert's snapshot and the prompt filled
from it must be byte-identical in both, and so must the rules signals of the batch path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.prompts import load_prompts
from tests.evaluation.market import market_frames, symbols

SYMBOL = symbols(1)[0]
DATES = [date(2022, 5, 6), date(2023, 1, 16), date(2023, 8, 31)]
EXPERTS = (
    "valuation_modeler",
    "technical_analyst",
    "financial_auditor",
    "macro_intelligence",
    "catalyst_detective",
)
AGENTS = "stockdesk.research.infrastructure.agents"


def news(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Two articles a quarter over the whole span: company news and market-wide news."""
    rows = []
    for i, day in enumerate(pd.date_range("2021-06-01", "2024-06-01", freq="45D")):
        rows.append(
            {"symbol": SYMBOL, "published_at": day + pd.Timedelta(hours=9),
             "title": f"测试0 业绩 公告 增长 {i}", "summary": "公司 业绩 增长",
             "body": "公司 公告 业绩 增长 利好" * 3,
             "url": f"https://news.example.com/a{i}", "source": "news.example.com"}
        )  # fmt: skip
        rows.append(
            {"symbol": SYMBOL, "published_at": day + pd.Timedelta(days=2), "title": f"央行 货币政策 利率 {i}",
             "summary": "宏观 政策 利率 下调", "body": "央行 利率 政策 行业 景气" * 3,
             "url": f"https://news.example.com/m{i}", "source": "news.example.com"}
        )  # fmt: skip
    return pd.DataFrame(rows)


def known_by(frames: dict[str, pd.DataFrame], day: date) -> dict[str, pd.DataFrame]:
    """What had been published by the end of `day`."""
    end = pd.Timestamp(day)
    return {
        "securities": frames["securities"],
        "bars": frames["bars"][frames["bars"]["trade_date"] <= end],
        "valuations": frames["valuations"][frames["valuations"]["trade_date"] <= end],
        "financials": frames["financials"][pd.to_datetime(frames["financials"]["ann_date"]) <= end],
        "news": frames["news"][frames["news"]["published_at"] < end + pd.Timedelta(days=1)],
    }


def container_for(settings: Settings, path: Path, frames: dict[str, pd.DataFrame]) -> AppContainer:
    container = AppContainer(settings.model_copy(update={"database_url": f"sqlite:///{path}"}))
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames("test", frames)
    return container


def seen(container: AppContainer, day: date) -> dict[str, str]:
    """Each expert's snapshot JSON and user prompt on `day`, plus the batch path's rules signals."""
    out = {}
    for expert in EXPERTS:
        snapshot = getattr(container.research, expert).build_snapshot(SYMBOL, day)
        dumped = snapshot.model_dump(mode="json")
        out[f"{expert}.snapshot"] = json.dumps(dumped, ensure_ascii=False, sort_keys=True)
        out[f"{expert}.prompt"] = load_prompts(f"{AGENTS}.{expert}").render_user(**dumped)
    evidence = container.research.rules_signals.evidence({SYMBOL: [day]}, list(EXPERTS))[SYMBOL][day]
    out["rules"] = evidence.model_dump_json()
    return out


@pytest.fixture
def full_frames() -> dict[str, pd.DataFrame]:
    frames = market_frames([SYMBOL])
    frames["news"] = news(frames)
    return frames


@pytest.fixture
def full(settings: Settings, tmp_path: Path, full_frames: dict[str, pd.DataFrame]) -> Iterator[AppContainer]:
    container = container_for(settings, tmp_path / "full.db", full_frames)
    yield container
    container.close()


@pytest.mark.parametrize("day", DATES, ids=str)
def test_snapshots_and_prompts_for_a_date_are_the_same_with_or_without_later_data(
    settings: Settings, tmp_path: Path, full: AppContainer, full_frames: dict[str, pd.DataFrame], day: date
) -> None:
    truncated = container_for(settings, tmp_path / f"{day}.db", known_by(full_frames, day))
    try:
        later, then = seen(full, day), seen(truncated, day)
    finally:
        truncated.close()
    assert later.keys() == then.keys()
    for key in later:
        assert later[key] == then[key], key
    assert "公告" in later["catalyst_detective.prompt"] or "央行" in later["macro_intelligence.prompt"]
