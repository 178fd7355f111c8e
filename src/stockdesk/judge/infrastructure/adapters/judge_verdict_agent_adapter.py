"""IJudgeVerdictAgentPort: prompt resources filled from JudgeInput -> one LLM call -> strict parse."""

from __future__ import annotations

from stockdesk.judge.application.services.choice_verdict import verdict_of
from stockdesk.judge.application.services.evidence_bound import STANCE_WORDS
from stockdesk.judge.application.services.holding_prompt import holding_block
from stockdesk.judge.application.services.lessons import lessons_block
from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.trade_plan import PlanOption
from stockdesk.judge.domain.dtos.verdict_choice import verdict_choice_model
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.judge.domain.ports.judge_verdict_agent import (
    IJudgeVerdictAgentPort,
    VerdictAnswer,
    VerdictQuestion,
)
from stockdesk.judge.infrastructure.agents.verdict import output_parser
from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.shared.claims import card_line
from stockdesk.shared.prompts import load_prompts

NONE = "（无）"
FEEDBACK_HEADER = "\n## 上一次回答未被接受，请修正\n"
SAMPLING = Sampling(temperature=0.1, max_tokens=400)  # low temperature: verdicts should not wander


def bullets(items: list[str]) -> str:
    return "\n".join(f"  - {item}" for item in items) if items else f"  {NONE}"


def stance_lines(judge_input: JudgeInput) -> str:
    evidence = judge_input.evidence
    lines = []
    for expert, stance in evidence.stances.items():
        line = f"- {expert}: {STANCE_WORDS.get(stance, stance)}"
        signal = evidence.code_signals.get(expert)
        if signal is not None:
            line += f"（规则信号 {STANCE_WORDS.get(signal.stance, signal.stance)}）"
        lines.append(line)
    return "\n".join(lines) or NONE


def plan_line(action: str, options: list[PlanOption]) -> str:
    by_variant = {o.variant: o.plan for o in options}
    std, con = by_variant.get("standard"), by_variant.get("conservative")
    if std is None:
        return f"- {action}：无方案"
    entry, stop, target = std.entry_price, std.stop_loss_price, std.take_profit_price
    down, up = std.stop_distance_pct, std.target_distance_pct
    if action == "BUY":
        parts = [f"入场参考 {entry:g}", f"止损 {stop:g}（-{down:g}%）", f"止盈 {target:g}（+{up:g}%）"]
        parts.append(f"盈亏比 {std.risk_reward:g}")
        if con is not None:
            parts.append(f"保守方案止盈 {con.take_profit_price:g}，仓位减半")
    elif action == "SELL":
        parts = [f"于 {entry:g} 离场", f"收复 {stop:g}（+{down:g}%）则看空判断失效"]
        parts.append(f"下行目标 {target:g}（-{up:g}%）")
    else:
        parts = ["不入场", f"跌破 {stop:g}（-{down:g}%）转弱", f"突破 {target:g}（+{up:g}%）转强"]
    return f"- {action}：" + "；".join(parts)


def card_lines(judge_input: JudgeInput) -> str:
    cards = judge_input.evidence.cards
    return "\n".join(f"- {card_line(c.id, c.text_zh, c.direction)}" for c in cards) or NONE


def render_prompt(prompts: object, judge_input: JudgeInput, feedback: str | None) -> str:
    plans = "\n".join(
        plan_line(a, judge_input.plans[a]) for a in ("BUY", "SELL", "HOLD") if a in judge_input.plans
    )
    prices = judge_input.evidence.prices
    caps = "；".join(f"{a} ≤ {c:.2f}" for a, c in judge_input.caps.items()) or NONE
    return prompts.render_user(  # type: ignore[attr-defined]
        symbol=judge_input.symbol,
        direction=judge_input.direction.value,
        confidence=f"{judge_input.confidence:.2f}",
        bull_thesis=judge_input.bull_thesis or NONE,
        bear_thesis=judge_input.bear_thesis or NONE,
        risk_factors=bullets(judge_input.risk_factors),
        key_disagreements=bullets(judge_input.key_disagreements),
        conflict_resolution=judge_input.conflict_resolution or NONE,
        stances=stance_lines(judge_input),
        reference_date=(prices.trade_date if prices and prices.trade_date else "最近"),
        plans=plans or "（无行情数据，无法计算方案）",
        caps=caps,
        lessons=lessons_block(judge_input.evidence.lessons),
        holding=holding_block(judge_input.holding),
        feedback=f"{FEEDBACK_HEADER}{feedback}\n" if feedback else "",
        cards=card_lines(judge_input),
    )


class JudgeVerdictAgentAdapter(IJudgeVerdictAgentPort):
    def __init__(self, llm: LLMHandle, output_style: str = "prose"):
        """`output_style` "choices": the model picks card ids (when the evidence has cards) and code
        writes the reasoning and risk warnings; "prose": it writes them (claim-checked)."""
        self._llm = llm
        self._prompts = load_prompts(output_parser.__package__ or "")
        self._choices = load_prompts(output_parser.__package__ or "", "prompts_choices")
        self._style = output_style

    def answer(self, question: VerdictQuestion, feedback: str | None = None) -> VerdictAnswer:
        judge_input, sample = question.judge_input, question.sample
        if self._style == "choices" and judge_input.evidence.cards:
            return self._choose(judge_input, feedback, sample)
        prompt = render_prompt(self._prompts, judge_input, feedback)
        # the feedback sits inside the template (its `{feedback}` line), not after it
        asked = self._llm.ask(
            prompt,
            self._prompts.system,
            response_model=VerdictResult,
            caller="judge.verdict",
            parse=output_parser.parse_verdict,
            sample=sample,
        )
        return VerdictAnswer(input=prompt, output=asked.text, result=asked.parsed)

    def _choose(self, judge_input: JudgeInput, feedback: str | None, sample: int) -> VerdictAnswer:
        """One call answered with card ids; the parsed model LLMService validated is used as is."""
        prompt = render_prompt(self._choices, judge_input, feedback)
        ids = [c.id for c in judge_input.evidence.cards]
        asked = self._llm.ask(
            prompt,
            self._choices.system,
            response_model=verdict_choice_model(ids),
            caller="judge.verdict.choices",
            sample=sample,
        )
        picks = asked.parsed.model_dump(mode="json")
        cards = {c.id: c for c in judge_input.evidence.cards}
        return VerdictAnswer(input=prompt, output=asked.text, result=verdict_of(picks, cards), choice=picks)
