"""The verdict's probability in words: what the number means, on how many outcomes it rests.

A probability is shown only when calibrated (P(excess return over the verdict horizon > 0), fitted
on past outcomes known by the verdict's date); otherwise the report says `uncalibrated` in words.
The signal model's own view is shown beside an LLM verdict, so a reader sees both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stockdesk.shared.wording import say


def _percent(value: Any) -> str:
    return f"{float(value) * 100:.0f}%"


def probability_line(verdict: Mapping[str, Any], lang: str = "en") -> str:
    model = verdict.get("signal_model") or {}
    horizon = str(model.get("horizon", 20))
    p = (verdict.get("probability_up") or {}).get(horizon)
    if not verdict.get("calibrated") or p is None:
        return say("report.probability.uncalibrated", lang)
    return say("report.probability.line", lang, horizon=horizon, p=_percent(p))


def probability_figures(verdict: Mapping[str, Any]) -> dict[str, str]:
    """The calibrated probability and its sample as formatted figures (a page words them in its
    own language); all empty when the verdict is uncalibrated."""
    model = verdict.get("signal_model") or {}
    horizon = str(model.get("horizon", 20))
    p = (verdict.get("probability_up") or {}).get(horizon)
    if not verdict.get("calibrated") or p is None:
        return {}
    cal = (verdict.get("calibration") or {}).get(horizon) or {}
    ece = cal.get("ece")
    return {
        "p_up": _percent(p),
        "p_horizon": horizon,
        "cal_n": f"{cal.get('n', 0):,}" if cal else "",
        "cal_to": str(cal.get("fitted_to") or "—"),
        "cal_ece": f"{ece:.3f}" if ece is not None else "—",
    }


def calibration_line(verdict: Mapping[str, Any], lang: str = "en") -> str:
    model = verdict.get("signal_model") or {}
    horizon = str(model.get("horizon", 20))
    cal = (verdict.get("calibration") or {}).get(horizon) or (model.get("calibration") or {}).get(horizon)
    if not cal:
        return ""
    ece = say("report.calibration.ece", lang, ece=f"{cal['ece']:.3f}") if cal.get("ece") is not None else ""
    fitted = (
        say("report.calibration.fitted", lang, pairs=f"{cal.get('pairs', 0):,}")
        if cal.get("model") == "fitted"
        else say("report.calibration.prior", lang)
    )
    to = say("report.calibration.to", lang, day=cal["fitted_to"]) if cal.get("fitted_to") else ""
    universe = model.get("universe", 0)
    return say(
        "report.calibration.line",
        lang,
        n=f"{cal.get('n', 0):,}",
        to=to,
        ece=ece,
        fitted=fitted,
        universe=universe,
    )


def model_line(verdict: Mapping[str, Any], lang: str = "en") -> str:
    """The signal model's view beside an LLM verdict (empty for the rules verdict, which is it)."""
    model = verdict.get("signal_model") or {}
    if not model or verdict.get("source") == "rules":
        return ""
    horizon = str(model.get("horizon", 20))
    p = (model.get("probability_up") or {}).get(horizon)
    odds = (
        say("report.model.odds", lang, horizon=horizon, p=_percent(p))
        if model.get("calibrated") and p is not None
        else say("report.model.uncalibrated", lang)
    )
    action = str(model.get("action", "—"))
    if lang != "en" and action in ("BUY", "SELL", "HOLD"):
        action = say(f"action.{action}", lang)
    return say("report.model.line", lang, action=action, odds=odds)


def lesson_lines(verdict: Mapping[str, Any], lang: str = "en") -> list[str]:
    """The past verdicts a reflecting judge was shown, each with what followed (code's figures)."""
    lines = []
    for lesson in verdict.get("lessons") or []:
        p = lesson.get("probability_up")
        stated = (
            say("report.lesson.stated", lang, p=_percent(p))
            if p is not None
            else say("report.model.uncalibrated", lang)
        )
        excess = float(lesson.get("excess_return") or 0.0)
        action = str(lesson.get("action"))
        right = {"BUY": excess > 0, "SELL": excess < 0}.get(action)
        verdict_word = "" if right is None else say(f"report.lesson.{'right' if right else 'wrong'}", lang)
        shown = (
            say(f"action.{action}", lang) if lang != "en" and action in ("BUY", "SELL", "HOLD") else action
        )
        lines.append(
            say(
                "report.lesson.line",
                lang,
                as_of=lesson.get("as_of"),
                action=shown,
                stated=stated,
                horizon=lesson.get("horizon"),
                excess=f"{excess * 100:+.2f}%",
                right=verdict_word,
            )
        )
    return lines
