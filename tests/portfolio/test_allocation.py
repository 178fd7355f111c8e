"""The allocation rule on hand-built inputs: the caps bind, the industry cap binds, the risk budget
cuts names that move together more than one that does not, SELL gets nothing; and (Hypothesis)
weights are never negative, never above the cap per name, and add up to at most the whole book."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.portfolio.application.allocation import Limits, NameInput, allocate
from stockdesk.portfolio.application.risk import book_volatility, shrunk_covariance
from stockdesk.portfolio.domain.view import NameVerdict

DAYS = 120


def returns(vols: dict[str, float], together: tuple[str, ...] = (), seed: int = 1) -> pd.DataFrame:
    """Daily returns with the given annualised volatilities; the names in `together` share a factor
    (correlation about 0.9), the others are independent."""
    rng = np.random.default_rng(seed)
    common = rng.normal(0, 1, DAYS)
    out = {}
    for symbol, vol in vols.items():
        own = rng.normal(0, 1, DAYS)
        shock = 0.95 * common + 0.31 * own if symbol in together else own
        out[symbol] = shock * vol / np.sqrt(252)
    return pd.DataFrame(out, index=pd.bdate_range("2024-01-01", periods=DAYS))


def buy(symbol: str, p: float = 0.60, industry: str = "", **extra: object) -> NameInput:
    verdict = NameVerdict(symbol=symbol, action="BUY", probability_up=p, calibrated=True, confidence=0.5)
    return NameInput(verdict=verdict, industry=industry or symbol, **extra)  # type: ignore[arg-type]


def run(names: list[NameInput], frame: pd.DataFrame, limits: Limits | None = None) -> dict[str, object]:
    out = allocate(names, frame, shrunk_covariance(frame), limits or Limits())
    return {a.symbol: a for a in out}


def test_a_calm_name_at_full_edge_is_cut_to_the_cap_per_name() -> None:
    frame = returns({"A": 0.20})
    a = run([buy("A", 0.62)], frame)["A"]
    assert a.raw_weight == pytest.approx(0.10 / a.volatility, rel=1e-9)  # type: ignore[attr-defined]
    assert a.raw_weight > 0.20  # type: ignore[attr-defined]
    assert a.target_weight == pytest.approx(0.20)  # type: ignore[attr-defined]
    assert [r.code for r in a.reasons] == ["sized", "name_cap"]  # type: ignore[attr-defined]
    assert "cap per name 20.0%" in a.reasons[-1].text["en"]  # type: ignore[attr-defined]
    assert "单只上限" in a.reasons[-1].text["zh"]  # type: ignore[attr-defined]


def test_the_edge_scales_the_size_below_full_edge() -> None:
    frame = returns({"A": 0.40, "B": 0.40})
    book = run([buy("A", 0.60), buy("B", 0.55)], frame, Limits(risk_budget=1.0))
    a, b = book["A"], book["B"]
    assert b.raw_weight / a.raw_weight == pytest.approx(0.5 * a.volatility / b.volatility, rel=1e-9)  # type: ignore[attr-defined]


def test_the_industry_cap_scales_its_names_alike() -> None:
    frame = returns({"A": 0.2, "B": 0.2, "C": 0.2, "D": 0.2})
    names = [buy(s, 0.62, industry="bank") for s in "ABC"] + [buy("D", 0.62, industry="car")]
    book = run(names, frame, Limits(risk_budget=1.0))
    for s in "ABC":
        assert book[s].target_weight == pytest.approx(0.40 / 3)  # type: ignore[attr-defined]
        assert book[s].reasons[-1].code == "industry_cap"  # type: ignore[attr-defined]
    assert book["D"].target_weight == pytest.approx(0.20)  # type: ignore[attr-defined]


def test_the_risk_budget_cuts_names_that_move_together_more() -> None:
    frame = returns({"A": 0.30, "B": 0.30, "C": 0.30}, together=("A", "B"))
    covariance = shrunk_covariance(frame)
    names = [buy("A", 0.62), buy("B", 0.62), buy("C", 0.62)]
    before = {s: 0.20 for s in "ABC"}  # each capped first
    assert book_volatility(before, covariance) > 0.10
    out = {a.symbol: a for a in allocate(names, frame, covariance, Limits(risk_budget=0.10))}
    kept = {s: out[s].target_weight / 0.20 for s in "ABC"}
    assert kept["A"] < kept["C"] and kept["B"] < kept["C"]
    assert kept["C"] < 1.0
    after = {s: out[s].target_weight for s in "ABC"}
    assert book_volatility(after, covariance) == pytest.approx(0.10, rel=1e-6)
    assert out["A"].reasons[-1].code == "risk_budget"


def test_sell_gets_nothing_and_a_held_hold_keeps_its_weight_capped() -> None:
    frame = returns({"S": 0.3, "H": 0.3, "BIG": 0.3, "N": 0.3})
    sell = NameInput(verdict=NameVerdict(symbol="S", action="SELL", probability_up=0.4, calibrated=True),
                     current_weight=0.15, held=True)  # fmt: skip
    hold = NameInput(
        verdict=NameVerdict(symbol="H", action="HOLD", confidence=0.4), current_weight=0.12, held=True
    )
    big = NameInput(verdict=NameVerdict(symbol="BIG", action="HOLD"), current_weight=0.35, held=True)
    new = NameInput(verdict=NameVerdict(symbol="N", action="HOLD"))
    book = run([sell, hold, big, new], frame, Limits(risk_budget=1.0))
    assert book["S"].target_weight == 0.0 and book["S"].reasons[-1].code == "sell"  # type: ignore[attr-defined]
    assert book["H"].target_weight == pytest.approx(0.12)  # type: ignore[attr-defined]
    assert book["BIG"].target_weight == pytest.approx(0.20)  # type: ignore[attr-defined]
    assert book["N"].target_weight == 0.0  # type: ignore[attr-defined]


def test_an_uncalibrated_verdict_uses_its_confidence_and_says_so() -> None:
    frame = returns({"U": 0.3})
    verdict = NameVerdict(symbol="U", action="BUY", confidence=0.58, calibrated=False)
    a = run([NameInput(verdict=verdict)], frame)["U"]
    assert a.probability == pytest.approx(0.58) and not a.calibrated  # type: ignore[attr-defined]
    assert a.reasons[0].code == "uncalibrated"  # type: ignore[attr-defined]
    assert "0.58" in a.reasons[0].text["en"]  # type: ignore[attr-defined]


def test_a_buy_without_an_edge_or_history_gets_nothing() -> None:
    frame = returns({"A": 0.3, "B": 0.3})
    frame.loc[frame.index[:80], "B"] = np.nan  # 40 returns left: too few
    book = run([buy("A", 0.49), buy("B", 0.7)], frame)
    assert book["A"].target_weight == 0.0 and book["A"].reasons[-1].code == "no_edge"  # type: ignore[attr-defined]
    assert book["B"].target_weight == 0.0 and book["B"].reasons[-1].code == "no_history"  # type: ignore[attr-defined]


ACTIONS = st.sampled_from(["BUY", "SELL", "HOLD", None])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(ACTIONS, st.floats(0.3, 0.8), st.floats(0.05, 0.9), st.floats(0, 0.5), st.booleans(),
                  st.sampled_from(["x", "y", "z"])),
        min_size=1, max_size=8,
    ),
    st.floats(0.05, 0.5), st.floats(0.1, 1.0), st.floats(0.03, 0.4), st.integers(0, 5),
)  # fmt: skip
def test_weights_are_never_negative_never_above_the_cap_and_fit_the_book(
    rows: list[tuple[str | None, float, float, float, bool, str]],
    name_cap: float,
    industry_cap: float,
    budget: float,
    seed: int,
) -> None:
    symbols = [f"S{i}" for i in range(len(rows))]
    frame = returns(
        {s: r[2] for s, r in zip(symbols, rows, strict=True)}, together=tuple(symbols[::2]), seed=seed
    )
    names = [
        NameInput(
            verdict=NameVerdict(symbol=s, action=a, probability_up=p, calibrated=True, confidence=p),
            current_weight=w, held=held, industry=industry,
        )
        for s, (a, p, _, w, held, industry) in zip(symbols, rows, strict=True)
    ]  # fmt: skip
    limits = Limits(name_cap=name_cap, industry_cap=industry_cap, risk_budget=budget)
    covariance = shrunk_covariance(frame)
    out = allocate(names, frame, covariance, limits)
    weights = [a.target_weight for a in out]
    assert all(w >= 0 for w in weights)
    assert all(w <= name_cap + 1e-9 for w in weights)
    assert sum(weights) <= 1 + 1e-9
    assert book_volatility({a.symbol: a.target_weight for a in out}, covariance) <= budget * (1 + 1e-6)
    for industry in "xyz":
        assert sum(a.target_weight for a in out if a.industry == industry) <= industry_cap + 1e-9
