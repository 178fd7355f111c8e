"""The Jinja2 environment every strategy template renders in, and the base class of a family's template."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from stockdesk.strategy_lab.domain.params import StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategyTemplate


def python_literal(value: Any) -> str:
    """A parameter as Python source; strings double-quoted as ruff format writes them."""
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def template_environment() -> Environment:
    """StrictUndefined makes a missing parameter an error, not ''; the block options keep the
    rendered modules ruff-formatted."""
    env = Environment(
        loader=PackageLoader(__package__ or __name__.rpartition(".")[0], "."),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["py"] = python_literal
    return env


class JinjaFamilyTemplate(IStrategyTemplate):
    """Renders `file` with the parameters of its own family only (another family's set is a caller bug)."""

    name: str
    file: str

    def __init__(self) -> None:
        self._env = template_environment()

    def render(self, params: StrategyParams) -> str:
        if params.strategy_type != self.name:
            raise ValueError(f"the {self.name} template cannot render {params.strategy_type} parameters")
        return self._env.get_template(self.file).render(**params.model_dump())
