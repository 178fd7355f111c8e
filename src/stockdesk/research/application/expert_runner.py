"""One analysis round with guards: ask, check, retry once with feedback, then return or flag."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from stockdesk.research.application.guards import check_grounding, trade_instructions
from stockdesk.research.domain.dtos.expert import AgentAnswer, GuardReport
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


def guard(answer: AgentAnswer[T], texts: Callable[[T], list[str]], facts: Any) -> GuardReport:
    parts = texts(answer.parsed)
    return GuardReport(grounding=check_grounding(parts, facts), trade_instructions=trade_instructions(parts))


def feedback_for(report: GuardReport) -> str:
    lines = []
    if report.grounding.ungrounded:
        lines.append(
            "这些数字不在输入数据中，不得使用：" + ", ".join(report.grounding.ungrounded)
            + "。只引用输入数据里给出的数值，缺失的写“数据不足”。"
        )  # fmt: skip
    if report.trade_instructions:
        lines.append(
            "研究员不得给出交易指令（出现了：" + "、".join(report.trade_instructions)
            + "）。只做分析判断，操作建议由 Judge 负责。"
        )  # fmt: skip
    return "\n".join(lines)


def run_guarded(
    analyze: Callable[[str | None], AgentAnswer[T]],
    texts: Callable[[T], list[str]],
    facts: Any,
    *,
    expert: str,
) -> tuple[AgentAnswer[T], GuardReport]:
    """`analyze(feedback)` is one LLM round; `facts` are the numbers the expert was shown."""
    answer = analyze(None)
    report = guard(answer, texts, facts)
    if report.grounding.passed and not report.trade_instructions:
        return answer, report
    logger.info("%s: guards failed (%s); retrying once with feedback", expert, report.model_dump())
    try:
        retry = analyze(feedback_for(report))
    except LLMOutputParseError:
        logger.warning(
            "%s: retry after guard feedback did not parse; keeping the first answer, flagged", expert
        )
        return answer, report.model_copy(update={"retried": True, "flagged": True})
    second = guard(retry, texts, facts)
    failed = not second.grounding.passed or bool(second.trade_instructions)
    return retry, second.model_copy(update={"retried": True, "flagged": failed})
