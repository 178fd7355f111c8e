"""The judge on the real embedded model: one call, a verdict within bounds, rules applied after."""

from __future__ import annotations

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.judge.test_judge import OUTCOME

pytestmark = pytest.mark.slow


def test_verdict_from_the_local_model_is_within_bounds(settings: Settings) -> None:
    container = AppContainer(settings)
    try:
        result = container.judge.service.run_on_outcome("600519.SH", OUTCOME)
    finally:
        container.close()
    assert result.action in {"BUY", "SELL", "HOLD"}
    assert 0.0 <= result.position_percent <= min(result.confidence, 0.5)
    assert result.action != "HOLD" or result.position_percent == 0.0
    assert result.stop_loss.strip() and result.reasoning.strip()
