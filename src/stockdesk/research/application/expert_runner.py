"""One analysis round with guards: ask, check, repair once with feedback, then drop what still fails.

The checks: every quoted number grounded in the snapshot, no trade instruction, and the shared
claim checks (a metric called unavailable that the input holds, a direction against the sign of
the number, percentile words against the percentile, benchmarks the input never gave, repeated
bullets and looping sentences). What still violates after the repair round is removed from the
answer (a bullet, or a sentence of prose; an emptied required field keeps a placeholder) and the
GuardReport says what was dropped and why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from stockdesk.research.application.guards import check_grounding, trade_instructions, trade_violations
from stockdesk.research.domain.dtos.expert import AgentAnswer, GuardReport
from stockdesk.shared.claims import (
    Violation,
    apply_texts,
    check_claims,
    checked_round,
    drop_violating,
    repair_feedback,
    required_fields,
)
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
TextFields = Mapping[str, str | list[str]]  # {field path: prose or bullets}, see shared.claims.collect_texts
_OWN_LINES = ("ungrounded_number", "trade_instruction")  # feedback_for words these itself


def _flat(fields: TextFields) -> list[str]:
    return [t for value in fields.values() for t in ([value] if isinstance(value, str) else value)]


def guard(answer: AgentAnswer[T], texts: Callable[[T], TextFields], facts: Any) -> GuardReport:
    fields = texts(answer.parsed)
    parts = _flat(fields)
    return GuardReport(
        grounding=check_grounding(parts, facts),
        trade_instructions=trade_instructions(parts),
        violations=[*trade_violations(fields), *check_claims(fields, facts)],
    )


def passed(report: GuardReport) -> bool:
    return report.grounding.passed and not report.trade_instructions and not report.violations


def feedback_for(violations: list[Violation]) -> str:
    """The repair request for one guarded round: the numbers not in the input, the trade
    instructions given, then the shared claim checks' lines for the rest."""
    lines = []
    ungrounded = list(dict.fromkeys(v.term for v in violations if v.kind == "ungrounded_number"))
    if ungrounded:
        lines.append(
            "这些数字不在输入数据中，不得使用：" + ", ".join(ungrounded)
            + "。只引用输入数据里给出的数值，缺失的写“数据不足”。"
        )  # fmt: skip
    trades = sorted({v.term for v in violations if v.kind == "trade_instruction"})
    if trades:
        lines.append(
            "研究员不得给出交易指令（出现了：" + "、".join(trades)
            + "）。只做分析判断，操作建议由 Judge 负责。"
        )  # fmt: skip
    claims = repair_feedback(v for v in violations if v.kind not in _OWN_LINES)
    if claims:
        lines.append(claims)
    return "\n".join(lines)


def drop_violations(
    answer: AgentAnswer[T], texts: Callable[[T], TextFields], violations: list[Violation], *, expert: str
) -> tuple[AgentAnswer[T], list[str]]:
    """The answer without the bullets / sentences that violate; unchanged if that would not validate."""
    fields = dict(texts(answer.parsed))
    cleaned = drop_violating(fields, violations, required=required_fields(answer.parsed, fields))
    try:
        parsed = type(answer.parsed).model_validate(apply_texts(answer.parsed, cleaned))
    except ValidationError as exc:
        logger.warning(
            "%s: dropping the violations left an invalid answer (%s); kept it flagged", expert, exc
        )
        return answer, []
    return answer.model_copy(update={"parsed": parsed}), cleaned.dropped


def run_guarded(
    analyze: Callable[[str | None], AgentAnswer[T]],
    texts: Callable[[T], TextFields],
    facts: Any,
    *,
    expert: str,
) -> tuple[AgentAnswer[T], GuardReport]:
    """`analyze(feedback)` is one LLM round; `texts` the fields the guards read (by field path);
    `facts` the input the expert was shown. The round is shared.claims.checked_round."""
    reports: dict[int, GuardReport] = {}  # each answer's guards, run once (by the round)

    def wrong(answer: AgentAnswer[T]) -> list[Violation]:
        reports[id(answer)] = guard(answer, texts, facts)
        return reports[id(answer)].violations

    done = checked_round(analyze, wrong, feedback_for, unparsed=(LLMOutputParseError,))
    report = reports[id(done.final)]
    if not done.retried:
        return done.final, report
    logger.info("%s: guards failed (%s); retried once with feedback", expert, done.first_wrong)
    report = report.model_copy(update={"retried": True, "first_violations": done.first_wrong})
    if passed(report):
        return done.final, report
    kept, dropped = drop_violations(done.final, texts, report.violations, expert=expert)
    if dropped:
        logger.info("%s: dropped what still violated after the repair: %s", expert, dropped)
    return kept, report.model_copy(update={"flagged": True, "dropped": dropped})
