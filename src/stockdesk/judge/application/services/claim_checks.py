"""The judge's texts under the shared claim checks: one repair round, then drop what still violates.

Checked: the reasoning and the risk warnings, against what the judge was shown (its prompt: the
debate's conclusions, the code-given plans and caps) and the experts' digests (named metrics, so
"growth improved" can be checked against the growth the experts saw), and against the action
chosen (a HOLD whose reasoning argues for buying contradicts itself). The repair keeps the action
chosen so far: a repaired answer that changes the action is not taken, its texts are not used.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.judge.domain.ports.judge_verdict_agent import VerdictAnswer
from stockdesk.shared.claims import (
    Violation,
    apply_texts,
    check_claims,
    checked_round,
    collect_texts,
    drop_violating,
    dump_violations,
    repair_feedback,
)
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
JUDGE_TEXTS = ("reasoning", "risk_warnings")
REQUIRED = {"reasoning"}


def checked_texts(
    result: VerdictResult,
    answer: VerdictAnswer,
    facts: dict[str, Any],
    ask: Callable[[str], VerdictAnswer],
) -> tuple[VerdictResult, dict[str, Any]]:
    """`result` with its texts checked through shared.claims.checked_round; `ask(feedback)` is one
    repair call, whose texts are taken only when it keeps the action. Returns the record too."""
    facts = {**facts, "prompt": answer.input}

    def asked(feedback: str | None) -> VerdictResult:
        if feedback is None:
            return result
        repaired = ask(feedback).result
        if repaired.action is not result.action:
            return repaired
        return result.model_copy(
            update={"reasoning": repaired.reasoning, "risk_warnings": repaired.risk_warnings}
        )

    def wrong(verdict: VerdictResult) -> list[Violation]:
        return check_claims(collect_texts(verdict, JUDGE_TEXTS), facts, action=verdict.action.value)

    done = checked_round(
        asked,
        wrong,
        repair_feedback,
        unparsed=(LLMOutputParseError,),
        accept=lambda first, repaired: repaired.action is first.action,
    )
    if not done.first_wrong:
        return result, {}
    record: dict[str, Any] = {"first_violations": dump_violations(done.first_wrong), "retried": True}
    final, still = done.final, done.still
    if not still:
        return final, {**record, "violations": [], "dropped": []}
    cleaned = drop_violating(collect_texts(final, JUDGE_TEXTS), still, required=REQUIRED)
    logger.info("judge: dropped after the repair: %s", cleaned.dropped)
    final = VerdictResult.model_validate(apply_texts(final, cleaned))
    return final, {**record, "violations": dump_violations(still), "dropped": cleaned.dropped}
