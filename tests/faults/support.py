"""The real app over a stand-in model server: aliases, settings, a populated store."""

from __future__ import annotations

from typing import Any

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import LLMAliasConfig, Settings
from tests.coordinator.support import SYMBOL, add_news
from tests.faults.processes import ModelServer
from tests.research.support import populate_store


def alias(server: ModelServer, name: str, priority: int, **fields: Any) -> LLMAliasConfig:
    return LLMAliasConfig(name=name, base_url=server.url, model=f"{name}-model", priority=priority, **fields)


def remote_settings(*aliases: LLMAliasConfig, **changes: Any) -> Settings:
    """This test's settings with the given model aliases (no embedded model, no keys)."""
    return Settings(llm_aliases=list(aliases), llm_timeout_seconds=10.0, **changes)


def desk(settings: Settings, *, with_news: bool = False) -> AppContainer:
    """The real app container over a populated SQLite store; its LLM service is built from settings."""
    container = AppContainer(settings)
    populate_store(container.database, SYMBOL)
    if with_news:
        add_news(container)
    return container
