"""A held symbol in the judge: the prompt's "You hold this symbol" section (only when held), the
verdict's holder's plan beside an unchanged BUY/HOLD/SELL, through the real service and a scripted
model."""

from __future__ import annotations

from stockdesk.judge.application.services.holding_prompt import holding_block
from tests.judge.test_holder_plan import held
from tests.judge.test_judge import NEUTRAL_FOUR_BULLISH_ONE, OUTCOME, service, verdict

HOLDING = held(1000, 90.0, 100.0, book=1_000_000)  # 10% of a 1,000,000 book, bought at 90


def test_the_prompt_has_the_holding_section_only_when_held() -> None:
    svc, _ = service(verdict(), verdict())
    alone = svc.run_on_outcome("600519.SH", OUTCOME, NEUTRAL_FOUR_BULLISH_ONE)
    holder = svc.run_on_outcome("600519.SH", OUTCOME, NEUTRAL_FOUR_BULLISH_ONE, holding=HOLDING)
    assert "你持有该标的" not in alone.input
    assert "你持有该标的" in holder.input and "持有 1,000 股，成本价 90.000" in holder.input
    assert "浮动盈亏 +10,000.00（+11.11%）" in holder.input and "占持仓组合市值的 10.0%" in holder.input
    assert holder.input.replace(holding_block(HOLDING), "") == alone.input  # nothing else differs
    assert alone.holding is None and alone.holder_plan is None


def test_the_verdict_stays_and_the_holder_plan_is_beside_it() -> None:
    svc, _ = service(verdict(), verdict())
    alone = svc.run_on_outcome("600519.SH", OUTCOME, NEUTRAL_FOUR_BULLISH_ONE)
    holder = svc.run_on_outcome("600519.SH", OUTCOME, NEUTRAL_FOUR_BULLISH_ONE, holding=HOLDING)
    same = ("action", "confidence", "position_percent", "trade_plan", "probability_up", "calibrated")
    assert {k: getattr(holder, k) for k in same} == {k: getattr(alone, k) for k in same}
    plan = holder.holder_plan
    assert holder.action == "BUY" and plan is not None and plan.base_action == "BUY"
    # the BUY plan's size of the book, less the 10% held, in lots of 100 at the close of 100
    gap = holder.position_percent * 1_000_000 - 100_000
    expected = max(0, int(gap / 100 / 100)) * 100
    assert plan.action == "ADD" and plan.shares == expected == 1500  # 25% of the book, 15 lots
    assert plan.stop is not None and plan.stop < 100 and plan.lot_size == 100


def test_a_rules_verdict_and_an_insufficient_one_carry_the_holder_plan_too() -> None:
    svc, provider = service(verdict())
    rules = svc.rules_only("600519.SH", {"technical": {**NEUTRAL_FOUR_BULLISH_ONE["technical"]}}, HOLDING)
    assert rules.evidence == "insufficient" and rules.holder_plan is not None
    assert rules.holder_plan.action == "HOLD" and rules.holder_plan.stop is None  # no plan: no stop
    assert rules.holding == HOLDING and provider.calls == 0
