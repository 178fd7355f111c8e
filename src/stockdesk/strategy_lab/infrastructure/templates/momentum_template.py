"""The momentum strategy template: validated parameters in, a standalone Python module out."""

from __future__ import annotations

from stockdesk.strategy_lab.infrastructure.templates.rendering import JinjaFamilyTemplate, python_literal

__all__ = ["MomentumTemplate", "python_literal"]


class MomentumTemplate(JinjaFamilyTemplate):
    """Renders momentum_strategy.py.j2."""

    name = "momentum"
    file = "momentum_strategy.py.j2"
