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
    apply_texts,
    check_claims,
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
    """`result` with its texts checked; `ask(feedback)` is one repair call. Returns the record too."""
    facts = {**facts, "prompt": answer.input}
    texts = collect_texts(result, JUDGE_TEXTS)
    found = check_claims(texts, facts, action=result.action.value)
    if not found:
        return result, {}
    record: dict[str, Any] = {"first_violations": dump_violations(found), "retried": True}
    still, final = found, result
    try:
        repaired = ask(repair_feedback(found)).result
    except LLMOutputParseError:
        logger.warning("judge: the repair did not parse; dropping from the first answer")
    else:
        if repaired.action is result.action:
            final = result.model_copy(
                update={"reasoning": repaired.reasoning, "risk_warnings": repaired.risk_warnings}
            )
            texts = collect_texts(final, JUDGE_TEXTS)
            still = check_claims(texts, facts, action=final.action.value)
    if not still:
        return final, {**record, "violations": [], "dropped": []}
    cleaned = drop_violating(texts, still, required=REQUIRED)
    logger.info("judge: dropped after the repair: %s", cleaned.dropped)
    final = VerdictResult.model_validate(apply_texts(final, cleaned))
    return final, {**record, "violations": dump_violations(still), "dropped": cleaned.dropped}
