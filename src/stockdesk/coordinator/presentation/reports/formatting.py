"""How numbers look in a report: one place, so Markdown and HTML show the same text.

Payloads are plain dicts written by other contexts; any value may be missing or of an
unexpected type, so every formatter accepts Any and falls back to DASH instead of raising.
"""

from __future__ import annotations

from typing import Any

from stockdesk.shared.wording import say

DASH = "—"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text(value: Any) -> str:
    """A free-text field: whitespace collapsed, DASH when empty."""
    if value is None:
        return DASH
    cleaned = " ".join(str(value).split())
    return cleaned or DASH


def number(value: Any) -> str:
    """A key number as the expert saw it: integers as they are, floats to at most 2 decimals (4
    significant digits below 1, so 0.0031 stays visible), N/A and other strings unchanged."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) >= 1 else f"{value:.4g}"
    return text(value)


def confidence(value: Any) -> str:
    return f"{value:.2f}" if is_number(value) else DASH


def percent(value: Any) -> str:
    """A fraction 0..1 as a percentage: 0.15 -> 15%, 0.125 -> 12.5%."""
    if not is_number(value):
        return DASH
    shown = f"{value * 100:.1f}".rstrip("0").rstrip(".")
    return f"{shown}%"


def count(value: Any) -> str:
    """Calls and tokens: thousands separated."""
    return f"{value:,}" if is_number(value) else DASH


def seconds(value: Any, lang: str = "en") -> str:
    if not is_number(value):
        return DASH
    if value < 60:
        return say("report.seconds", lang, s=f"{value:.2f}")
    minutes, rest = divmod(round(value), 60)
    return say("report.minutes", lang, m=minutes, s=rest)


def label(name: str) -> str:
    """valuation_modeler -> Valuation modeler."""
    return name.replace("_", " ").strip().capitalize() or name
