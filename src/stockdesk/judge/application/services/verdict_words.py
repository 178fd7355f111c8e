"""The verdict's code-worded sentences in both languages, written when the verdict is made.

What the model writes (its reasoning, its risk warnings) is its own and stays as written; what code
writes (the trade plan's lines, the horizon chosen from a closed list, the rules verdict's and the
signal model's reasoning, why the evidence is insufficient, why code changed the answer) is worded
here from the shared catalogue (`verdict.*`, `action.*`, `stance.*`, the experts' names) in every
language, and stored as the verdict's (or the adjustment's) `i18n` beside the field it words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stockdesk.judge.application.services.plan_text import plan_texts
from stockdesk.judge.domain.dtos.evidence import ModelDecision
from stockdesk.judge.domain.dtos.trade_plan import TradePlan
from stockdesk.shared.wording import LANGUAGES, Bilingual, UnknownText, both, say

Said = dict[str, str]  # language -> text
HORIZONS = {"1-4周": "weeks", "1-3个月": "months", "3-6个月": "half_year"}  # VerdictResult.TimeHorizon


def said(key: str, **values: Any) -> Said:
    """`key` in every language; a value that is itself a `Said` is put in in its own language."""
    return {
        lang: say(key, lang, **{k: v[lang] if isinstance(v, dict) else v for k, v in values.items()})
        for lang in LANGUAGES
    }


def named(prefix: str, name: str, lang: str) -> str:
    """An action, a stance or an expert by its catalogue name; an unknown one as it is."""
    try:
        return say(f"{prefix}{name}", lang)
    except UnknownText:
        return name


def experts_list(experts: Sequence[str], lang: str) -> str:
    return say("list.separator", lang).join(named("analyze.expert.", e, lang) for e in experts)


def horizon(value: str) -> Said:
    """The verdict horizon (a closed list the model picks from) in every language."""
    key = HORIZONS.get(value)
    return said(f"verdict.horizon.{key}") if key else dict.fromkeys(LANGUAGES, value)


def rules_reasoning_in(composite: float, action: str, signals: Mapping[str, Any], lang: str) -> str:
    """The rules verdict's reasoning: its composite and each signal it rests on."""
    parts = [
        say(
            "verdict.rules_signal",
            lang,
            expert=named("analyze.expert.", name, lang),
            stance=named("stance.", s.stance, lang),
            score=f"{s.score:+.2f}",
        )
        for name, s in signals.items()
    ]
    listed = say("list.separator", lang).join(parts) or say("verdict.no_signal", lang)
    return say(
        "verdict.rules_reasoning",
        lang,
        composite=f"{composite:+.2f}",
        action=named("action.", action, lang),
        signals=listed,
    )


def model_note(model: ModelDecision, lang: str) -> str:
    """What the signal model is and how far its probability holds (research's ModelView.words)."""
    cal = model.calibration.get(str(model.horizon))
    if not cal:
        return say("verdict.model.no_data", lang)
    fitted = (
        say("verdict.model.fitted", lang, pairs=cal.get("pairs", 0), to=cal.get("fitted_to"))
        if cal.get("model") == "fitted"
        else say("verdict.model.prior", lang)
    )
    if not model.calibrated:
        return say("verdict.model.uncalibrated", lang, fitted=fitted, n=cal.get("n", 0))
    return say("verdict.model.calibrated", lang, fitted=fitted, n=cal.get("n", 0), to=cal.get("fitted_to"))


def model_reasoning_in(model: ModelDecision, lang: str) -> str:
    """The rules verdict's reasoning when the signal model made it, worded from its numbers."""
    h = str(model.horizon)
    p = model.probability_up.get(h)
    parts = [model_note(model, lang)]
    if p is not None:
        parts.append(say("verdict.model.probability", lang, h=h, p=f"{p:.2f}"))
    pushes = say("list.separator", lang).join(
        f"{named('analyze.expert.', name, lang)} {value:+.4f}"
        for name, value in sorted(model.contributions.items())
    )
    if pushes:
        parts.append(say("verdict.model.contributions", lang, pushes=pushes))
    parts.append(say("verdict.model.action", lang, action=named("action.", model.action, lang)))
    return say("verdict.model.separator", lang).join(parts) + ("." if lang == "en" else "。")


def insufficient_in(experts: Sequence[str], needed: int, lang: str) -> dict[str, str]:
    """Why there is no verdict, and the plan fields' words, when too few experts had data."""
    names = say("verdict.insufficient.named", lang, experts=experts_list(experts, lang)) if experts else ""
    reason = say("verdict.insufficient", lang, n=len(experts), named=names, needed=needed)
    no_plan = say("verdict.insufficient.no_plan", lang)
    return {
        "reasoning": reason,
        "evidence_reason": reason,
        "entry_strategy": no_plan,
        "stop_loss": no_plan,
        "take_profit": no_plan,
    }


def verdict_i18n(
    plan: TradePlan | None, time_horizon: str, reasoning: Callable[[str], str] | None = None
) -> Bilingual:
    """The verdict's code-worded fields in every language; `reasoning` only when code wrote it."""

    def fields(lang: str) -> dict[str, str]:
        worded = {**plan_texts(plan, lang), "time_horizon": horizon(time_horizon)[lang]}
        if reasoning is not None:
            worded["reasoning"] = reasoning(lang)
        return worded

    return both(fields)
