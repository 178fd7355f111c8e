"""JudgeService: the model chooses and explains; code owns every number and bounds the confidence.

Before anything: fewer than two experts with data is `insufficient evidence` (evidence_check.py):
HOLD, confidence 0, no plan, and the model is not asked.
After the model's answer, in this order (each change kept in `adjustments`):
1. against the evidence (both the expert majority and the debate point elsewhere): re-asked once
   with the reason; still against -> replaced by the rules verdict;
2. the reasoning and risk warnings checked against what the judge was shown (shared claim
   checks): one repair round, then what still contradicts the input is dropped;
3. confidence capped at 0.3 + 0.7 x the share of voices pointing the action's way;
4. the trade plan (levels, distances, size) computed for the final action and confidence from
   the as-of prices; the text fields entry_strategy / stop_loss / take_profit are written from it.
`samples` > 1 asks the same question under other seeds and reports how often the action agrees.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services import choice_verdict
from stockdesk.judge.application.services.claim_checks import checked_texts
from stockdesk.judge.application.services.debate_outcome import judge_input_from_outcome
from stockdesk.judge.application.services.evidence import judge_evidence
from stockdesk.judge.application.services.evidence_bound import (
    STANCE_WORDS,
    against_evidence,
    against_reason,
    support_for,
)
from stockdesk.judge.application.services.evidence_check import insufficient_verdict, is_sufficient
from stockdesk.judge.application.services.holder_verdict import with_holder
from stockdesk.judge.application.services.model_verdict import (
    UNCALIBRATED_CAP,
    capped_uncalibrated,
    model_decision,
    model_fields,
    model_reasoning,
)
from stockdesk.judge.application.services.plan_text import plan_texts
from stockdesk.judge.application.services.rules_verdict import RulesDecision, counted, rules_decision
from stockdesk.judge.application.services.trade_plan import compute_trade_plan, plan_options
from stockdesk.judge.application.services.verdict_words import (
    model_reasoning_in,
    rules_reasoning_in,
    said,
    verdict_i18n,
)
from stockdesk.judge.domain.dtos.adjustment import Adjustment
from stockdesk.judge.domain.dtos.evidence import CardInput, JudgeEvidence
from stockdesk.judge.domain.dtos.holding import Holding
from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.trade_plan import PlanVariant, TradePlan
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.judge.domain.model.enums import ActionDirection
from stockdesk.judge.domain.ports.judge_verdict_agent import (
    IJudgeVerdictAgentPort,
    VerdictAnswer,
    VerdictQuestion,
)
from stockdesk.shared.claims import PLACEHOLDER, checked_round, listed
from stockdesk.shared.errors import LLMOutputParseError
from stockdesk.shared.wording import LANGUAGES, Bilingual

logger = logging.getLogger(__name__)
MAX_SAMPLES = 9
RULES_HORIZON = "1-3个月"


def rules_reasoning(rules: RulesDecision) -> str:
    parts = [
        f"{name} {STANCE_WORDS.get(s.stance, s.stance)}（{s.score:+.2f}）"
        for name, s in rules.signals.items()
    ]
    return (
        f"规则裁决（无 LLM）：综合得分 {rules.composite:+.2f} → {rules.action.value}；"
        + ("，".join(parts) or "无可用信号")
    )[:400]


def rules_summary(rules: RulesDecision, plan: TradePlan | None) -> dict[str, Any]:
    return {
        "action": rules.action.value,
        "confidence": rules.confidence,
        "composite": rules.composite,
        "support": rules.support,
        "signals": {name: s.model_dump() for name, s in rules.signals.items()},
        "trade_plan": plan.model_dump(mode="json") if plan else None,
    }


def plan_for(
    action: ActionDirection, evidence: JudgeEvidence, confidence: float, variant: PlanVariant
) -> TradePlan | None:
    return compute_trade_plan(action, evidence.prices, confidence, variant) if evidence.prices else None


Writer = Callable[[str], str]  # language -> a text code wrote


def _rendered_if_dropped(
    result: VerdictResult, cards: list[CardInput], claims: dict[str, Any]
) -> tuple[VerdictResult, dict[str, Any], Writer | None]:
    """A reasoning the claim round had to drop whole is written from the cards instead (the
    choices-mode rendering of the same action, its strongest cards), never left a placeholder;
    with it, how code words it in each language."""
    if result.reasoning != PLACEHOLDER:
        return result, claims, None
    action = result.action.value
    agree = [c.id for c in cards if c.direction in choice_verdict.DECISIVE[action] and c.direction != 0][:3]
    by_id = {c.id: c for c in cards}

    def write(lang: str) -> str:
        return choice_verdict.reasoning(action, agree, by_id, lang)

    replaced = result.model_copy(update={"reasoning": write("zh")})
    return replaced, {**claims, "replaced": ["reasoning"]}, write


def _verdict_i18n(
    plan: TradePlan | None,
    result: VerdictResult,
    source: str,
    rules: RulesDecision,
    written: Writer | None,
    choices: Mapping[str, Any],
) -> Bilingual:
    """The verdict's code-worded fields in every language: the plan's lines and the horizon always;
    the reasoning when code wrote it (the rules verdict standing in, the cards' rendering); in
    choices mode the reasoning and risk warnings code wrote from the picked cards."""
    if source == "rules":

        def written(lang: str) -> str:
            return rules_reasoning_in(rules.composite, rules.action.value, rules.signals, lang)[:200]

    worded = verdict_i18n(plan, result.time_horizon, written)
    english = choices.get("english")
    if isinstance(english, Mapping):
        worded["en"].update(reasoning=english.get("reasoning"), risk_warnings=english.get("risk_warnings"))
        worded["zh"].update(reasoning=result.reasoning, risk_warnings=list(result.risk_warnings))
    return worded


CHOICE_FEEDBACK = "以下卡号与所选操作的方向不符，请保持操作不变并重新选择："


@dataclass(frozen=True)
class RulesCall:
    """The rules verdict's decision; `action` None: insufficient evidence (fewer than two experts
    with data among `rested_on`)."""

    evidence: JudgeEvidence
    rules: RulesDecision
    rested_on: list[str]
    action: ActionDirection | None
    confidence: float
    plan: TradePlan | None
    adjustments: list[Adjustment]

    @property
    def position_percent(self) -> float:
        return self.plan.position_percent if self.plan else 0.0


class JudgeService:
    def __init__(self, agent: IJudgeVerdictAgentPort):
        self._agent = agent

    # ---- entry points --------------------------------------------------------------------------
    def run_on_outcome(
        self,
        symbol: str,
        debate_outcome: Mapping[str, Any],
        evidence: Mapping[str, Any] | None = None,
        *,
        samples: int = 1,
        holding: Holding | None = None,
    ) -> VerdictDTO:
        """The REST route's and the Coordinator's entry: dicts in, a verdict out; `holding`: the
        user's position in the symbol (the prompt says so, the verdict carries the holder's plan)."""
        judge_input = judge_input_from_outcome(symbol, debate_outcome)
        found = judge_evidence(evidence)
        judge_input = judge_input.model_copy(update={"evidence": found, "holding": holding})
        return self.run(judge_input, samples=samples)

    def rules_call(self, evidence: Mapping[str, Any] | None) -> RulesCall:
        """The rules verdict's decision (action, confidence, plan) without the verdict's texts: what
        `rules_only` words into a verdict and what `evaluate` scores at every point."""
        found = judge_evidence(evidence)
        rules = rules_decision(found.code_signals)
        named = found.experts_with_data  # the signals its composite rests on, of experts with data
        rested_on = sorted(n for n in counted(found.code_signals) if named is None or n in named)
        if not is_sufficient(rested_on):
            return RulesCall(found, rules, rested_on, None, 0.0, None, [])
        voices = {name: s.stance for name, s in counted(found.code_signals).items()}
        action, confidence = rules.action, rules.confidence
        adjustments: list[Adjustment] = []
        if found.model is not None:  # the rules verdict is the walk-forward model's
            cap = support_for(ActionDirection(found.model.action), voices, None).cap
            action, confidence = model_decision(found.model, cap, adjustments)
        else:  # the composite fallback has no calibration: uncalibrated, at most 0.6
            confidence = min(confidence, UNCALIBRATED_CAP)
        plan = plan_for(action, found, confidence, "standard")
        return RulesCall(found, rules, rested_on, action, confidence, plan, adjustments)

    def rules_only(
        self, symbol: str, evidence: Mapping[str, Any] | None, holding: Holding | None = None
    ) -> VerdictDTO:
        """The code-only verdict: no LLM, no debate; seconds, not minutes. With `holding`, the
        holder's plan beside it (the verdict itself is the same)."""
        call = self.rules_call(evidence)
        if call.action is None:
            return with_holder(insufficient_verdict(symbol, call.rested_on, "rules"), holding, None)
        return with_holder(self._rules_verdict(symbol, call), holding, call.evidence.prices)

    @staticmethod
    def _rules_verdict(symbol: str, call: RulesCall) -> VerdictDTO:
        assert call.action is not None  # insufficient evidence was answered before
        found, plan = call.evidence, call.plan
        voices = {name: s.stance for name, s in counted(found.code_signals).items()}
        support = support_for(call.action, voices, None)
        model, rules = found.model, call.rules

        def reasoning(lang: str) -> str:
            if model is not None:
                return model_reasoning_in(model, lang)
            return rules_reasoning_in(rules.composite, rules.action.value, rules.signals, lang)

        return VerdictDTO(
            symbol=symbol,
            action=call.action.value,
            position_percent=call.position_percent,
            confidence=call.confidence,
            **plan_texts(plan),
            time_horizon=RULES_HORIZON,
            risk_warnings=[],
            reasoning=model_reasoning(found.model) if found.model else rules_reasoning(call.rules),
            source="rules",
            trade_plan=plan,
            support=support.model_dump(),
            adjustments=call.adjustments,
            rules_applied=[a.what for a in call.adjustments],
            rules_verdict=rules_summary(call.rules, plan),
            experts_with_data=call.rested_on,
            **model_fields(found.model, own=True),
            i18n=verdict_i18n(plan, RULES_HORIZON, reasoning),
        )

    def run(self, judge_input: JudgeInput, *, samples: int = 1) -> VerdictDTO:
        evidence = judge_input.evidence
        if not is_sufficient(evidence.experts_with_data):  # no model call: nothing to weigh
            verdict = insufficient_verdict(judge_input.symbol, evidence.experts_with_data or [], "rules")
            return with_holder(verdict, judge_input.holding, None)
        rules = rules_decision(evidence.code_signals)
        rules_plan = plan_for(rules.action, evidence, rules.confidence, "standard")
        prepared = self._with_options(judge_input)
        answer = self._agent.answer(VerdictQuestion(prepared))
        first_action = answer.result.action
        adjustments: list[Adjustment] = []
        result, source, answer = self._direction_checked(prepared, answer, rules, adjustments)
        claims: dict[str, Any] = {}
        choices: dict[str, Any] = {}
        written: Writer | None = None
        if source == "llm" and answer.choice is not None:  # code wrote the texts: check the picks
            result, answer, choices = self._checked_choice(prepared, answer)
        elif source == "llm":
            result, claims = checked_texts(
                result,
                answer,
                evidence.facts,
                lambda feedback: self._agent.answer(VerdictQuestion(prepared), feedback),
            )
            result, claims, written = _rendered_if_dropped(result, evidence.cards, claims)
            if claims.get("dropped"):
                n = len(claims["dropped"])
                adjustments.append(Adjustment.worded("reasoning", n, 0, said("verdict.adjust.dropped", n=n)))

        support = support_for(result.action, evidence.stances, prepared.direction)
        confidence = result.confidence
        if confidence > support.cap:
            why = said(
                "verdict.adjust.capped",
                before=f"{confidence:.2f}",
                after=f"{support.cap:.2f}",
                support={lang: support.words(lang) for lang in LANGUAGES},
            )
            adjustments.append(Adjustment.worded("confidence", confidence, support.cap, why))
            confidence = support.cap
        confidence = capped_uncalibrated(confidence, adjustments)
        plan = plan_for(result.action, evidence, confidence, result.plan)
        stability = self._stability(prepared, samples, first_action, result.action)
        verdict = VerdictDTO(
            symbol=judge_input.symbol,
            action=result.action.value,
            position_percent=plan.position_percent if plan else 0.0,
            confidence=confidence,
            **plan_texts(plan),
            time_horizon=result.time_horizon,
            risk_warnings=list(dict.fromkeys(result.risk_warnings)),
            reasoning=result.reasoning,
            source=source,
            trade_plan=plan,
            adjustments=adjustments,
            support=support.model_dump(),
            rules_verdict=rules_summary(rules, rules_plan),
            stability=stability,
            claim_checks=claims,
            choices=choices,
            rules_applied=[a.what for a in adjustments],
            experts_with_data=evidence.experts_with_data,
            **model_fields(evidence.model, own=False),
            lessons=evidence.lessons,
            i18n=_verdict_i18n(plan, result, source, rules, written, choices),
            input=answer.input,
            output=answer.output,
        )
        return with_holder(verdict, judge_input.holding, evidence.prices)

    # ---- steps ---------------------------------------------------------------------------------
    @staticmethod
    def _with_options(judge_input: JudgeInput) -> JudgeInput:
        """The code-given plans and confidence caps the model chooses within."""
        evidence = judge_input.evidence
        caps = {a.value: support_for(a, evidence.stances, judge_input.direction).cap for a in ActionDirection}
        plans = (
            {a.value: plan_options(a, evidence.prices, caps[a.value]) for a in ActionDirection}
            if evidence.prices
            else {}
        )
        return judge_input.model_copy(update={"plans": plans, "caps": caps})

    def _direction_checked(
        self,
        judge_input: JudgeInput,
        answer: VerdictAnswer,
        rules: RulesDecision,
        adjustments: list[Adjustment],
    ) -> tuple[VerdictResult, str, VerdictAnswer]:
        stances, debate = judge_input.evidence.stances, judge_input.direction
        reason = against_reason(answer.result.action, stances, debate)
        if reason is None:
            return answer.result, "llm", answer
        first = answer.result.action
        retry = self._agent.answer(VerdictQuestion(judge_input), f"{reason['en']}。请依据证据重新裁决。")
        if against_evidence(retry.result.action, stances, debate) is None:
            why = said("verdict.adjust.reasked", reason=reason)
            adjustments.append(Adjustment.worded("action", first.value, retry.result.action.value, why))
            return retry.result, "llm", retry
        why = said("verdict.adjust.replaced", reason=reason)
        adjustments.append(Adjustment.worded("action", retry.result.action.value, rules.action.value, why))
        replaced = VerdictResult(
            action=rules.action,
            plan="standard",
            confidence=rules.confidence,
            time_horizon=RULES_HORIZON,
            risk_warnings=[],
            reasoning=rules_reasoning(rules)[:200],
        )
        return replaced, "rules", retry

    def _checked_choice(
        self, judge_input: JudgeInput, answer: VerdictAnswer
    ) -> tuple[VerdictResult, VerdictAnswer, dict[str, Any]]:
        """Choices mode: picks against the cards' directions; one re-ask keeping the action, then
        what is still wrong is dropped; the texts are written again from what is kept."""
        cards = {c.id: c for c in judge_input.evidence.cards}

        def ask(feedback: str | None) -> VerdictAnswer:
            return answer if feedback is None else self._agent.answer(VerdictQuestion(judge_input), feedback)

        def same_action(first: VerdictAnswer, retry: VerdictAnswer) -> bool:
            return retry.choice is not None and retry.result.action is first.result.action

        done = checked_round(
            ask,
            lambda a: choice_verdict.wrong_picks(dict(a.choice or {}), cards),
            listed(CHOICE_FEEDBACK),
            unparsed=(LLMOutputParseError,),
            accept=same_action,
        )
        answer, wrong, record = done.final, done.still, done.record()
        picks = dict(answer.choice or {})
        picks = choice_verdict.kept(picks, wrong)
        record.update(picks=picks, english=choice_verdict.english(picks, cards))
        return choice_verdict.verdict_of(picks, cards), answer, record

    def _stability(
        self, judge_input: JudgeInput, samples: int, first: ActionDirection, final: ActionDirection
    ) -> dict[str, Any] | None:
        if samples <= 1:
            return None
        actions = [first.value]
        for sample in range(1, min(samples, MAX_SAMPLES)):
            try:
                actions.append(self._agent.answer(VerdictQuestion(judge_input, sample)).result.action.value)
            except LLMOutputParseError:
                logger.warning("judge stability sample %d did not parse; counted as disagreeing", sample)
                actions.append("invalid")
        return {"samples": len(actions), "agree": actions.count(final.value), "actions": actions}
