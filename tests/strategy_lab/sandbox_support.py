"""Hostile strategies for the sandbox tests: a template that renders any body, and a runner.

With the `unchecked` fixture (conftest.py) the allowlist check is off, so what a body does is
stopped by the worker process alone.
"""

from __future__ import annotations

import pandas as pd

from stockdesk.strategy_lab.domain.errors import StrategyExecutionError
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams, StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategyTemplate
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import ProcessSandbox, SandboxLimits
from tests.strategy_lab.support import PARAMS

PARAMETERS = MomentumStrategyParams(**PARAMS)
FAILED = "the strategy failed computing weights"
CLOSES = pd.DataFrame({"A": [10.0, 11.0], "B": [5.0, 5.5]}, index=pd.bdate_range("2024-01-01", periods=2))
FACTS = pd.DataFrame(columns=["symbol", "end_date", "ann_date", "revenue", "roe"])
STRATEGY = """\
import pandas as pd

STOP_LOSS = 0.1
PARAMS = {{}}


def generate_weights(close, fundamentals):
{body}
    return close.iloc[[0]] * 0.0 + 0.5
"""
GENEROUS = SandboxLimits(cpu_seconds=30, memory_mb=1024, timeout_seconds=60.0)


class HostileTemplate(IStrategyTemplate):
    """Renders the next body it was given (the last one again when they run out)."""

    name = "hostile"

    def __init__(self, *bodies: str):
        self._bodies = list(bodies)

    def render(self, params: StrategyParams) -> str:
        body = self._bodies.pop(0) if len(self._bodies) > 1 else self._bodies[0]
        return STRATEGY.format(body="\n".join(f"    {line}" for line in body.splitlines()))


def run(*bodies: str, limits: SandboxLimits = GENEROUS) -> list[pd.DataFrame | str]:
    """Each body in turn in one session: the weights, or the error message."""
    outcomes: list[pd.DataFrame | str] = []
    with ProcessSandbox(HostileTemplate(*bodies), limits).session() as session:
        for _ in bodies:
            try:
                outcomes.append(session.weights(PARAMETERS, CLOSES, FACTS))
            except StrategyExecutionError as exc:
                outcomes.append(exc.message)
    return outcomes
