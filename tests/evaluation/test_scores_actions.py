"""Action stats (with the HOLD band), per-expert attribution and the per-horizon summary."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from stockdesk.evaluation.application.scores import (
    action_stats,
    expert_attribution,
    hit_flags,
    signed_confidence,
    summarise,
)

NAN = float("nan")
ACTIONS = ["BUY", "BUY", "BUY", "SELL", "SELL", "HOLD", "HOLD", "HOLD", "BUY"]
RETURNS = [0.05, -0.02, 0.01, -0.03, 0.04, 0.02, -0.03, 0.031, NAN]
EXCESS = [0.03, -0.04, NAN, -0.01, 0.02, 0.00, -0.05, 0.02, 0.10]


def test_hit_flags_apply_each_action_rule() -> None:
    # BUY: up; SELL: down; HOLD: |r| <= 3% (the band's edge -3% is a hit, 3.1% is not); NaN: never.
    assert list(hit_flags(ACTIONS, RETURNS)) == [True, False, True, True, False, True, True, False, False]
    assert list(hit_flags(["HOLD"] * 3, [0.02, -0.03, 0.031], hold_band=0.025)) == [True, False, False]


def test_signed_confidence() -> None:
    assert list(signed_confidence(["BUY", "SELL", "HOLD"], [0.8, 0.6, 0.9])) == [0.8, -0.6, 0.0]


def test_action_stats_per_action() -> None:
    stats = action_stats(ACTIONS, RETURNS, EXCESS)
    assert list(stats) == ["BUY", "SELL", "HOLD"]
    buy = stats["BUY"]  # the NaN-return BUY is left out: .05, -.02, .01
    assert buy.count == 3
    assert buy.hit_rate == pytest.approx(2 / 3)
    assert buy.mean_return == pytest.approx(0.04 / 3)
    assert buy.median_return == pytest.approx(0.01)
    assert buy.mean_excess == pytest.approx(-0.005)  # excess .03, -.04 (the NaN excess is skipped)
    assert buy.median_excess == pytest.approx(-0.005)
    sell = stats["SELL"]
    assert (sell.count, sell.hit_rate) == (2, 0.5)
    assert sell.mean_return == pytest.approx(0.005)
    assert sell.mean_excess == pytest.approx(0.005)
    hold = stats["HOLD"]
    assert (hold.count, hold.hit_rate) == (3, pytest.approx(2 / 3))
    assert hold.median_return == pytest.approx(0.02)
    assert action_stats(ACTIONS, RETURNS, EXCESS, hold_band=0.025)["HOLD"].hit_rate == pytest.approx(1 / 3)


def test_action_stats_only_reports_actions_present() -> None:
    stats = action_stats(["buy", "BUY"], [0.01, NAN], [NAN, NAN])
    assert list(stats) == ["BUY"]
    assert stats["BUY"].count == 1
    assert stats["BUY"].mean_excess is None and stats["BUY"].median_excess is None


def _expert_rows(expert: str, day: str, stances: list[tuple[str, float]], excess: list[float], drift: float):
    return [
        {
            "expert": expert,
            "as_of": day,
            "stance": stance,
            "confidence": conf,
            "forward_return": e + drift,
            "excess_return": e,
        }
        for (stance, conf), e in zip(stances, excess, strict=True)
    ]


# Day 1: excess .05, .02, -.01, -.03, 0 (forward = excess + .01: .06, .03, 0, -.02, .01).
#   fundamental: bull .9, bull .6, neutral, bear .8, bear .4 -> signal .9, .6, 0, -.8, -.4
#   signal ranks 5, 4, 3, 1, 2 (centred 2, 1, 0, -2, -1); excess ranks 5, 4, 2, 1, 3 (2, 1, -1, -2, 0)
#   IC = (4 + 1 + 0 + 4 + 0) / 10 = .9; hits: bull .06 yes, bull .03 yes, bear -.02 yes, bear .01 no.
# Day 2: excess .01 .. .05 (forward = excess - .02: -.01, 0, .01, .02, .03).
#   fundamental: bull .5, neutral, bull .5, bull .7, bull .6 -> signal .5, 0, .5, .7, .6
#   ranks 2.5, 1, 2.5, 5, 4 (centred -.5, -2, -.5, 2, 1; sum sq 9.5); excess centred -2, -1, 0, 1, 2 (10)
#   IC = (1 + 2 + 0 + 2 + 2) / sqrt(95) = 7 / sqrt(95); hits: -.01 no, .01 yes, .02 yes, .03 yes.
# sentiment says the opposite of fundamental every time; macro is always neutral.
DAY1 = [0.05, 0.02, -0.01, -0.03, 0.0]
DAY2 = [0.01, 0.02, 0.03, 0.04, 0.05]
FUND1 = [("bullish", 0.9), ("bullish", 0.6), ("neutral", 0.5), ("bearish", 0.8), ("bearish", 0.4)]
FUND2 = [("bullish", 0.5), ("neutral", 0.5), ("bullish", 0.5), ("bullish", 0.7), ("bullish", 0.6)]
FLIP = {"bullish": "bearish", "bearish": "bullish", "neutral": "neutral"}


def _attribution_frame() -> pd.DataFrame:
    rows = []
    for expert, flip in (("fundamental", False), ("sentiment", True)):
        for day, stances, excess, drift in (
            ("2024-05-02", FUND1, DAY1, 0.01),
            ("2024-05-03", FUND2, DAY2, -0.02),
        ):
            rows += _expert_rows(
                expert, day, [(FLIP[s] if flip else s, c) for s, c in stances], excess, drift
            )
    rows += _expert_rows("macro", "2024-05-02", [("neutral", 0.5)] * 5, DAY1, 0.01)
    rows += _expert_rows("macro", "2024-05-03", [("bullish", 0.9)], [NAN], NAN)  # no forward return yet
    return pd.DataFrame(rows)


def test_expert_attribution() -> None:
    rows = {r.expert: r for r in expert_attribution(_attribution_frame())}
    assert list(rows) == ["fundamental", "macro", "sentiment"]
    ic1, ic2 = 0.9, 7 / math.sqrt(95)
    mean = (ic1 + ic2) / 2
    t = mean / ((abs(ic1 - ic2) / math.sqrt(2)) / math.sqrt(2))  # std of two values = |a - b| / sqrt(2)

    fundamental = rows["fundamental"]
    assert (fundamental.count, fundamental.directional) == (10, 8)
    assert fundamental.hit_rate == pytest.approx(6 / 8)
    assert fundamental.ic_mean == pytest.approx(mean)
    assert fundamental.ic_t == pytest.approx(t)
    assert fundamental.ic_dates == 2
    assert fundamental.helps is True

    sentiment = rows["sentiment"]
    assert sentiment.hit_rate == pytest.approx(2 / 8)  # day 1: only bull at .01; day 2: only bear at -.01
    assert sentiment.ic_mean == pytest.approx(-mean)
    assert sentiment.ic_t == pytest.approx(-t)
    assert sentiment.helps is False

    macro = rows["macro"]  # all neutral: no hit rate, a constant signal gives no IC
    assert (macro.count, macro.directional) == (5, 0)
    assert macro.hit_rate is None and macro.ic_mean is None and macro.ic_t is None
    assert macro.ic_dates == 0
    assert macro.helps is None


def test_expert_attribution_rejects_unknown_stance_and_missing_columns() -> None:
    frame = _attribution_frame()
    frame.loc[0, "stance"] = "very bullish"
    with pytest.raises(ValueError, match="unknown stances"):
        expert_attribution(frame)
    with pytest.raises(ValueError, match="lacks columns"):
        expert_attribution(frame.drop(columns=["excess_return"]))


def _summary_points() -> pd.DataFrame:
    # Two dates of five symbols; BUYs rise, SELLs fall, so the signed confidence ranks excess perfectly.
    actions = ["BUY", "BUY", "HOLD", "SELL", "SELL"]
    confidence = [0.9, 0.6, 0.5, 0.6, 0.8]
    excess = [0.04, 0.02, 0.0, -0.01, -0.03]
    rows = [
        {
            "as_of": day,
            "symbol": f"S{k}",
            "action": actions[k],
            "confidence": confidence[k],
            "forward_return": excess[k] + 0.005,
            "excess_return": excess[k],
        }
        for day in ("2024-06-03", "2024-06-04")
        for k in range(5)
    ]
    rows.append(
        {"as_of": "2024-06-05", "symbol": "S0", "action": "BUY", "confidence": 0.9}
        | {"forward_return": NAN, "excess_return": NAN}
    )
    return pd.DataFrame(rows)


def test_summarise_one_horizon() -> None:
    result = summarise(_summary_points())
    assert (result.count, result.missing) == (10, 1)
    assert {k: v.count for k, v in result.actions.items()} == {"BUY": 4, "SELL": 4, "HOLD": 2}
    # forward = excess + .005: BUY .045, .025 hit; HOLD .005 hit; SELL -.005, -.025 hit.
    assert result.hit_rate == 1.0
    assert result.mean_excess == pytest.approx(0.004)
    assert result.rank_ic.dates == 2
    assert result.rank_ic.mean == pytest.approx(1.0)
    assert result.rank_ic.t is None  # std 0
    # p = .9, .6, .5, .4, .2 vs outcome 1, 1, 0, 0, 0 on both days.
    # Brier = 2 * (.01 + .16 + .25 + .16 + .04) / 10 = .124
    assert result.calibration.count == 10
    assert result.calibration.brier == pytest.approx(0.124)
    assert result.calibration.base_rate == pytest.approx(0.4)


def test_summarise_serialises_without_nan() -> None:
    points = _summary_points().iloc[[0, 10]]  # one known point: no IC, no spread anywhere
    dumped = summarise(points).model_dump(mode="json")
    json.dumps(dumped, allow_nan=False)
    assert dumped["rank_ic"]["mean"] is None
    assert dumped["calibration"]["brier_skill"] is None
    assert summarise(_summary_points().iloc[[10]]).count == 0
    assert np.isnan(_summary_points()["forward_return"].iloc[10])
