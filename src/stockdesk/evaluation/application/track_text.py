"""The track record in one sentence, from code: live entries only, with sample size and intervals."""

from __future__ import annotations

from typing import Any

HEADLINE_HORIZON = 20


def headline_horizon(horizons: list[int]) -> int:
    """20 trading days when asked for, else the first horizon."""
    return HEADLINE_HORIZON if HEADLINE_HORIZON in horizons else horizons[0]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def _signed(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "n/a"
    text = f"{value * 100:+.1f}%" if percent else f"{value:+.2f}"
    return text.replace("-", "\u2212")


def _bracket(interval: list[float] | None, percent: bool = False) -> str:
    return "" if interval is None else f" [{_signed(interval[0], percent)}, {_signed(interval[1], percent)}]"


def _skill(scores: dict[str, Any]) -> str:
    if not scores["calibrated"]:
        return "Brier skill uncalibrated (no verdict states a probability)"
    if scores["brier_skill"] is None:
        return f"Brier skill undefined (all {scores['calibrated']} calibrated verdicts had the same outcome)"
    text = f"Brier skill {_signed(scores['brier_skill'])}{_bracket(scores['intervals']['brier_skill'])}"
    if scores["uncalibrated"]:
        text += f" over {scores['calibrated']} calibrated ({scores['uncalibrated']} uncalibrated)"
    return text


def headline_text(live: dict[str, Any], retrospective_entries: int, horizons: list[int]) -> str:
    """E.g. "this desk's 214 matured live verdicts at 20 days: hit 53% [49%, 57%], mean excess
    +0.4% [-0.2%, +1.0%], Brier skill +0.01 [-0.01, +0.03]"; says so when there are none."""
    h = headline_horizon(horizons)
    scores = (live.get("all") or {}).get(str(h))
    apart = (
        f"; {retrospective_entries} retrospective entries are reported apart" if retrospective_entries else ""
    )
    if not scores or not scores["matured"]:
        pending = live.get("entries", 0)
        return f"no matured live verdicts at {h} days yet ({pending} live entries){apart}"
    hit = scores["intervals"]["hit_rate"]
    hit_text = _pct(scores["hit_rate"]) + ("" if hit is None else f" [{_pct(hit[0])}, {_pct(hit[1])}]")
    excess = _signed(scores["mean_excess"], True) + _bracket(scores["intervals"]["mean_excess"], True)
    return (
        f"this desk's {scores['matured']} matured live verdicts at {h} days: hit {hit_text}, "
        f"mean excess {excess}, {_skill(scores)}{apart}"
    )
