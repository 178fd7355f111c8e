"""`evaluate --reflection`: did lessons from past verdicts make the judge better? Measured, paired.

Both arms are full-mode runs on the same points; they differ only in the lessons shown to the
judge (every other LLM call is the same prompt, answered from the response cache). Per horizon:
the paired moving-block bootstrap (over dates) of, with minus without,
- `action_excess`: the excess return earned by following the action (+ for BUY, - for SELL,
  0 for HOLD): what the changed verdicts earned or lost;
- `hit_rate`: the share of verdicts that were right;
- `brier`: the calibrated probability's Brier score (lower is better), where both arms have one.
Reflection *helps* only when, at the verdict horizon (20 trading days, else the first asked),
the interval of `action_excess` lies above 0. Anything else keeps it off, and the words say why.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from stockdesk.evaluation.application.scores import bootstrap_difference
from stockdesk.evaluation.application.scores.bootstrap import ActionExcess, BrierScore, HitRate
from stockdesk.evaluation.application.scoring import horizon_frame
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.shared.wording import say

VERDICT_HORIZON = 20
KEYS = ["symbol", "as_of"]


def decision_horizon(horizons: list[int]) -> int:
    return VERDICT_HORIZON if VERDICT_HORIZON in horizons else horizons[0]


def compare_reflection(
    with_lessons: pd.DataFrame, without: pd.DataFrame, config: EvaluationConfig, lessons_given: int
) -> dict[str, Any]:
    """The `reflection` block of the report: per horizon the paired differences, the points whose
    action changed, and the decision in words. Frames: scored points (outcomes joined)."""
    common = with_lessons[KEYS].merge(without[KEYS], on=KEYS)
    mine = with_lessons.merge(common, on=KEYS).sort_values(KEYS).reset_index(drop=True)
    base = without.merge(common, on=KEYS).sort_values(KEYS).reset_index(drop=True)
    changed = int((mine["action"].to_numpy() != base["action"].to_numpy()).sum()) if len(mine) else 0
    horizons: dict[str, Any] = {}
    for h in config.horizons:
        a, b = horizon_frame(mine, h), horizon_frame(base, h)
        horizons[str(h)] = {
            name: bootstrap_difference(
                a["as_of"], a, b, statistic,
                resamples=config.bootstrap_resamples, seed=config.bootstrap_seed,
            ).model_dump(mode="json")
            for name, statistic in (
                ("action_excess", ActionExcess()),
                ("hit_rate", HitRate(config.hold_band)),
                ("brier", BrierScore()),
            )
        }  # fmt: skip
    h = decision_horizon(config.horizons)
    decided = horizons.get(str(h), {}).get("action_excess", {})
    helps = decided.get("low") is not None and decided["low"] > 0
    figures = {
        "points": len(mine),
        "actions_changed": changed,
        "lessons_given": lessons_given,
        "horizon": h,
        "helps": helps,
        "horizons": horizons,
    }
    return {**figures, "summary": reflection_sentence(figures, "en")}


def _pct(value: float | None, lang: str) -> str:
    """A signed percent; a float-rounding residue (-2e-17) reads as 0, not "-0.00%"."""
    if value is None:
        return say("eval.na", lang)
    return f"{round(value * 100, 2) + 0.0:+.2f}%"


def reflection_sentence(reflection: dict[str, Any], lang: str) -> str:
    """What the comparison says, in `lang`, from its stored figures (the summary in each language)."""
    h = reflection["horizon"]
    decided = reflection.get("horizons", {}).get(str(h), {}).get("action_excess", {})
    head = say(
        "eval.reflection.head", lang,
        given=reflection["lessons_given"], points=reflection["points"], changed=reflection["actions_changed"],
        h=h, observed=_pct(decided.get("observed"), lang),
        low=_pct(decided.get("low"), lang), high=_pct(decided.get("high"), lang),
    )  # fmt: skip
    if reflection.get("helps"):
        return head + say("eval.reflection.helps", lang)
    if decided.get("low") is None:
        return head + say("eval.reflection.unknown", lang)
    return head + say("eval.reflection.no_help", lang)
