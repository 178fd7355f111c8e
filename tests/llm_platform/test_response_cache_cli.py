"""`stockdesk llm cache stats|clear` through the real app (no model is started for either)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.llm_platform.container as llm_container
import stockdesk.llm_platform.presentation.cli as llm_cli
from stockdesk.llm_platform.domain.dtos import CompletionResponse
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.db import Database


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache commands must never assemble or start the embedded model."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cache commands touched the embedded model")

    monkeypatch.setattr(llm_container, "ensure_model_file", refuse)


def fill(database: Database, count: int) -> None:
    cache = SqlLLMStore(database)
    for i in range(count):
        cache.put(f"key{i}", CompletionResponse(text=f"answer {i}", model="m", provider="p"))


def stats_json(cli_app: typer.Typer) -> dict:
    result = CliRunner().invoke(cli_app, ["llm", "cache", "stats", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_stats_prints_entries_and_size(cli_app: typer.Typer, database: Database) -> None:
    empty = stats_json(cli_app)
    assert (empty["entries"], empty["size_bytes"], empty["oldest"], empty["enabled"]) == (0, 0, None, False)
    fill(database, 3)
    full = stats_json(cli_app)
    assert full["entries"] == 3 and full["size_bytes"] > 0 and full["oldest"] and full["newest"]
    text = CliRunner().invoke(cli_app, ["llm", "cache", "stats"])
    assert text.exit_code == 0, text.output
    assert (
        "entries: 3" in text.stdout and "size:" in text.stdout and "STOCKDESK_LLM_CACHE is off" in text.stdout
    )


def test_clear_with_yes_removes_every_entry(cli_app: typer.Typer, database: Database) -> None:
    fill(database, 2)
    result = CliRunner().invoke(cli_app, ["llm", "cache", "clear", "--yes"])
    assert result.exit_code == 0, result.output
    assert "removed 2 cached LLM responses" in result.stdout
    assert stats_json(cli_app)["entries"] == 0


def test_clear_without_yes_and_without_a_terminal_is_refused(
    cli_app: typer.Typer, database: Database
) -> None:
    fill(database, 2)
    result = CliRunner().invoke(cli_app, ["llm", "cache", "clear"])
    assert result.exit_code == 2
    assert "--yes" in result.stderr and "removed" not in result.stdout
    assert SqlLLMStore(database).stats().entries == 2


def test_clear_asks_at_a_terminal(
    cli_app: typer.Typer, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llm_cli, "_interactive", lambda: True)
    fill(database, 2)
    declined = CliRunner().invoke(cli_app, ["llm", "cache", "clear"], input="n\n")
    assert declined.exit_code == 1 and "Delete 2 cached LLM responses?" in declined.output
    assert SqlLLMStore(database).stats().entries == 2
    accepted = CliRunner().invoke(cli_app, ["llm", "cache", "clear"], input="y\n")
    assert accepted.exit_code == 0 and "removed 2 cached LLM responses" in accepted.output
    assert SqlLLMStore(database).stats().entries == 0


def test_the_real_command_refuses_with_one_error_line_and_exit_2() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stockdesk", "llm", "cache", "clear"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--yes" in lines[0] and "Traceback" not in result.stderr
