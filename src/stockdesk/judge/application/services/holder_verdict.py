"""A verdict with the holder's plan beside it: what the rules in holder_plan.py read from the
verdict (its action, plan levels, position percent, calibrated probability) and where they put it.

The verdict's own fields stay as they are: a holder and a non-holder get the same BUY/HOLD/SELL,
confidence and probability, and the ledger and `evaluate` read only those.
"""

from __future__ import annotations

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services.holder_plan import HolderInputs, holder_plan
from stockdesk.judge.application.services.trade_plan import compute_trade_plan
from stockdesk.judge.domain.dtos.holding import Holding
from stockdesk.judge.domain.dtos.trade_plan import PlanInputs
from stockdesk.judge.domain.model.enums import ActionDirection

DEFAULT_HORIZON = 20  # the signal model's verdict horizon when the verdict does not name one


def verdict_p_up(verdict: VerdictDTO) -> float | None:
    """The verdict's calibrated P(up) at its own horizon; None when it is uncalibrated."""
    if not verdict.calibrated:
        return None
    horizon = (verdict.signal_model or {}).get("horizon", DEFAULT_HORIZON)
    return verdict.probability_up.get(str(horizon))


def holder_inputs(verdict: VerdictDTO, prices: PlanInputs | None) -> HolderInputs:
    """The levels the holder's rules read: the HOLD plan of the same prices gives the downside
    distance and the level to watch above; a BUY's own plan its target and size."""
    plan = verdict.trade_plan
    if plan is None or prices is None:  # no prices, or no verdict to speak of (insufficient evidence)
        return HolderInputs(p_up=verdict_p_up(verdict))
    watch = compute_trade_plan(ActionDirection.HOLD, prices, verdict.confidence)
    return HolderInputs(
        downside=watch.entry_price - watch.stop_loss_price,
        buy_target=plan.take_profit_price if plan.action is ActionDirection.BUY else None,
        watch_above=watch.take_profit_price,
        target_percent=verdict.position_percent,
        p_up=verdict_p_up(verdict),
    )


def with_holder(verdict: VerdictDTO, holding: Holding | None, prices: PlanInputs | None) -> VerdictDTO:
    """`verdict` with `holding` and its `holder_plan`; unchanged for a non-holder."""
    if holding is None:
        return verdict
    plan = holder_plan(ActionDirection(verdict.action), holding, holder_inputs(verdict, prices))
    return verdict.model_copy(update={"holding": holding, "holder_plan": plan})
