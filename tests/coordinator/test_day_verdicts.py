"""A rules session's verdict as the typed day verdict the paper book and the portfolio view read:
the probability at the signal model's horizon, its sample size, the trade plan's levels; a session
without a verdict says why."""

from __future__ import annotations

from datetime import UTC, date, datetime

from stockdesk.coordinator.application import ResearchSession, symbol_verdict

DAY = date(2019, 12, 16)


def session(verdict: dict[str, object], errors: dict[str, str] | None = None) -> ResearchSession:
    return ResearchSession(
        id="s", symbol="000338.SZ", as_of=DAY, experts=[], started_at=datetime(2019, 12, 16, tzinfo=UTC),
        verdict=verdict, errors=errors or {},
    )  # fmt: skip


def test_the_probability_is_read_at_the_signal_models_horizon() -> None:
    verdict = {
        "action": "buy", "confidence": 0.55, "calibrated": True,
        "probability_up": {"5": 0.51, "20": 0.5536, "60": 0.49},
        "calibration": {"20": {"n": 1068}, "5": {"n": 1092}},
        "signal_model": {"horizon": 20},
        "trade_plan": {"entry_price": 14.7, "stop_loss_price": 13.9, "take_profit_price": 15.8, "atr": 0.4},
    }  # fmt: skip
    v = symbol_verdict(session(verdict), DAY)
    assert (v.action, v.confidence, v.horizon, v.probability_up, v.calibrated) == (
        "BUY",
        0.55,
        20,
        0.5536,
        True,
    )
    assert (v.sample_size, v.close, v.stop, v.target, v.atr) == (1068, 14.7, 13.9, 15.8, 0.4)


def test_an_uncalibrated_verdict_has_no_probability() -> None:
    v = symbol_verdict(session({"action": "HOLD", "confidence": 0.3, "calibrated": False}), DAY)
    assert (v.action, v.probability_up, v.calibrated, v.sample_size, v.horizon) == (
        "HOLD",
        None,
        False,
        None,
        20,
    )


def test_no_verdict_says_why() -> None:
    v = symbol_verdict(session({}, {"judge": "no evidence"}), DAY)
    assert v.action is None and v.note == "no evidence"
