"""Shared fixtures: every test gets its own STOCKDESK_HOME and a real SQLite file."""

from __future__ import annotations

import os

# The CLI's tables are read whole by the tests: 200 columns, set before any Rich console is made (a
# console reads COLUMNS when created). Without it the width is whatever the runner's stdout is: a
# terminal's in a serial run, 80 in pytest-xdist's workers, whose output is a pipe.
os.environ["COLUMNS"] = "200"
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import SECRET_ENV_VARS, Settings, get_settings
from stockdesk.shared.db import Database
from tests.postgres_server import postgres_migrated_url, postgres_server, postgres_url  # noqa: F401
from tests.ray_support import ray_local  # noqa: F401
from tests.slow_tests import (  # noqa: F401
    pytest_runtest_logreport,
    pytest_terminal_summary,
    real_model_only_when_marked_slow,
)

# Secrets and provider settings read from outside STOCKDESK_*: none may leak in from the shell.
SECRET_ENV = (*SECRET_ENV_VARS, "SEARXNG_URL", "SEC_USER_AGENT")


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One assembled copy of the embedded model for the whole session."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> Iterator[Path]:
    """Clear every STOCKDESK_* variable and the secrets, then point STOCKDESK_HOME at a temp dir."""
    home = tmp_path / "home"
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("STOCKDESK_")] + list(SECRET_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STOCKDESK_HOME", str(home))
    monkeypatch.setenv("STOCKDESK_MODELS_DIR", str(models_dir))
    get_settings.cache_clear()
    yield home
    get_settings.cache_clear()


@pytest.fixture
def settings(isolated_home: Path) -> Settings:
    return Settings()


@pytest.fixture
def database(settings: Settings) -> Iterator[Database]:
    db = Database(settings.effective_database_url)
    yield db
    db.dispose()


def scripted_service(
    *providers: ScriptedProvider | tuple[str, ScriptedProvider],
    database: Database | None = None,
    output_style: str = "prose",
    **options: object,
) -> LLMService:
    """An LLMService over scripted providers (aliases p0, p1, ... unless named); `output_style`
    "choices" makes the agents pick card ids instead of writing."""
    routes = []
    for index, item in enumerate(providers):
        alias, provider = item if isinstance(item, tuple) else (f"p{index}", item)
        routes.append(
            ProviderRoute(alias=alias, provider=provider, priority=index, output_style=output_style)
        )
    opts = LLMServiceOptions(backoff_seconds=0.0, **options)  # type: ignore[arg-type]
    store = SqlLLMStore(database) if database else None
    return LLMService(
        routes,
        audit=store,
        cache=store,
        options=opts,
    )


@pytest.fixture
def cli_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[typer.Typer]:
    """The real `stockdesk` app, with a fresh process container (it reads this test's STOCKDESK_HOME)."""
    import stockdesk.entrypoints.cli as entry

    monkeypatch.setattr(entry, "_container", None)
    yield entry.app
    if entry._container is not None:
        entry._container.close()
