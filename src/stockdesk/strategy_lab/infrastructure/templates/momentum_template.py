"""The momentum strategy template: validated parameters in, a standalone Python module out."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from stockdesk.strategy_lab.domain.params import MomentumStrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategyTemplate

TEMPLATE_FILE = "momentum_strategy.py.j2"


def python_literal(value: Any) -> str:
    """A parameter as Python source; strings double-quoted as ruff format writes them."""
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


class MomentumTemplate(IStrategyTemplate):
    """Renders momentum_strategy.py.j2; StrictUndefined makes a missing parameter an error, not ''."""

    name = "momentum"

    def __init__(self) -> None:
        self._env = Environment(
            loader=PackageLoader(__package__ or __name__.rpartition(".")[0], "."),
            undefined=StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
        )
        self._env.filters["py"] = python_literal

    def render(self, params: MomentumStrategyParams) -> str:
        return self._env.get_template(TEMPLATE_FILE).render(**params.model_dump())
