"""The verdict's text fields (entry, stop, target of judge-design.md, Decision 4) written by code
from the trade plan."""

from __future__ import annotations

from stockdesk.judge.domain.dtos.trade_plan import TradePlan
from stockdesk.judge.domain.model.enums import ActionDirection

NO_PLAN = "无行情数据，无法计算价位"


def plan_texts(plan: TradePlan | None) -> dict[str, str]:
    """entry_strategy, stop_loss and take_profit, each quoting only the plan's numbers."""
    if plan is None:
        return {"entry_strategy": NO_PLAN, "stop_loss": NO_PLAN, "take_profit": NO_PLAN}
    day = f"{plan.reference_date} 收盘价" if plan.reference_date else "最近收盘价"
    entry, stop, target = plan.entry_price, plan.stop_loss_price, plan.take_profit_price
    down, up = plan.stop_distance_pct, plan.target_distance_pct
    if plan.action is ActionDirection.BUY:
        return {
            "entry_strategy": f"以 {entry:g} 附近（{day}）买入，仓位 {plan.position_percent:.1%}",
            "stop_loss": f"收盘跌破 {stop:g}（-{down:g}%）止损",
            "take_profit": f"到达 {target:g}（+{up:g}%，盈亏比 {plan.risk_reward:g}）止盈",
        }
    if plan.action is ActionDirection.SELL:
        return {
            "entry_strategy": f"于 {entry:g} 附近（{day}）卖出离场，不持仓",
            "stop_loss": f"若收复 {stop:g}（+{down:g}%），看空判断失效，重新评估",
            "take_profit": f"下行目标 {target:g}（-{up:g}%）",
        }
    return {
        "entry_strategy": f"暂不入场；参考价 {entry:g}（{day}）",
        "stop_loss": f"跌破 {stop:g}（-{down:g}%）转弱，需重新评估",
        "take_profit": f"突破 {target:g}（+{up:g}%）转强，需重新评估",
    }
