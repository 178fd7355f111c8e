"""A failed graph node is recorded on the session in one line and logged with its traceback."""

from __future__ import annotations

import logging

import pytest

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import LLMOutputParseError
from tests.coordinator.support import AS_OF, SYMBOL, pipeline


def test_a_failed_expert_is_logged_with_its_traceback(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"TechnicalAnalysisOutput"}
    with caplog.at_level(logging.WARNING, logger="stockdesk.coordinator.application.graph"):
        session = container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF))
    assert "technical_analyst" in session.expert_errors  # still degraded, not raised
    logged = [r for r in caplog.records if r.name == "stockdesk.coordinator.application.graph"]
    assert [r.levelno for r in logged] == [logging.WARNING]
    assert "technical_analyst" in logged[0].getMessage()
    assert logged[0].exc_info is not None and logged[0].exc_info[1] is not None
    assert isinstance(logged[0].exc_info[1], LLMOutputParseError)  # the exception itself, not its line
    assert session.expert_errors["technical_analyst"] in logged[0].getMessage()
