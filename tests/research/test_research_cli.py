"""`stockdesk research <expert> SYMBOL --snapshot-only`: each command reaches its expert's service."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from stockdesk.entrypoints.container import AppContainer
from stockdesk.research.presentation.cli import build_research_cli
from stockdesk.shared.config import Settings
from tests.research.support import AS_OF, populate_store


@pytest.mark.parametrize("command", ["valuation", "technical", "financial", "macro", "catalyst"])
def test_each_command_prints_its_experts_snapshot(command: str, settings: Settings) -> None:
    container = AppContainer(settings)
    populate_store(container.database)
    app = build_research_cli(lambda: container.research)
    result = CliRunner().invoke(app, [command, "600001.SH", "--as-of", AS_OF.isoformat(), "--snapshot-only"])
    assert result.exit_code == 0, result.output
    snapshot = json.loads(result.output)
    assert snapshot["symbol"] == "600001.SH" and snapshot["as_of"] == AS_OF.isoformat()
