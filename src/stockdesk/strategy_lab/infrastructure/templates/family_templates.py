"""The mean-reversion and volatility templates, and the registry that picks a family's template by
`strategy_type` (what the generator and the sandbox are given)."""

from __future__ import annotations

from collections.abc import Mapping

from stockdesk.strategy_lab.domain.params import FAMILIES, StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategyTemplate
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate
from stockdesk.strategy_lab.infrastructure.templates.rendering import JinjaFamilyTemplate


class MeanReversionTemplate(JinjaFamilyTemplate):
    """Renders mean_reversion_strategy.py.j2."""

    name = "mean_reversion"
    file = "mean_reversion_strategy.py.j2"


class VolatilityTemplate(JinjaFamilyTemplate):
    """Renders volatility_strategy.py.j2."""

    name = "volatility"
    file = "volatility_strategy.py.j2"


class FamilyTemplates(IStrategyTemplate):
    """Dispatches on `params.strategy_type` to that family's template (one per family, all required)."""

    name = "families"

    def __init__(self, templates: Mapping[str, IStrategyTemplate] | None = None):
        if templates is None:
            templates = {
                t.name: t for t in (MomentumTemplate(), MeanReversionTemplate(), VolatilityTemplate())
            }
        self._templates = dict(templates)
        missing = sorted(set(FAMILIES) - set(self._templates))
        if missing:
            raise ValueError(f"no template for the families {missing}")

    def for_family(self, family: str) -> IStrategyTemplate:
        return self._templates[family]

    def render(self, params: StrategyParams) -> str:
        return self._templates[params.strategy_type].render(params)
