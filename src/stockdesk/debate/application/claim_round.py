"""One debate agent's round under the shared claim checks: answer, check, one repair, drop the rest.

The advocates are checked against the digests they were shown (numbers, percentiles, growth signs,
benchmarks the digests never gave, repeated points) and for arguing the other side; the
resolution against the digests and both cleaned cases. What still violates after the repair
round is dropped; `ClaimRound.record` says what was found, asked for and dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from stockdesk.debate.domain.ports.agents import AgentAnswer
from stockdesk.shared.claims import (
    Violation,
    apply_texts,
    check_claims,
    checked_round,
    collect_texts,
    drop_violating,
    dump_violations,
    repair_feedback,
    required_fields,
)
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)

BULL_TEXTS = ("core_thesis", "supporting_arguments", "acknowledged_risks")
BEAR_TEXTS = ("core_thesis", "supporting_arguments", "acknowledged_strengths")
RESOLUTION_TEXTS = (
    "risk_matrix[].risk",
    "risk_matrix.*.mitigation",
    "key_disagreements",
    "conflict_resolution",
)
RESOLUTION_REQUIRED = ("conflict_resolution",)  # an outcome may have no risk row left, not an empty verdict


@dataclass
class ClaimRound(Generic[T]):
    """The calls made (for the audit), the final answer's fields after dropping, and the record."""

    answers: list[AgentAnswer[T]]
    data: dict[str, Any]
    retried: bool = False  # a repair was asked (its answer may not have parsed)
    first_violations: list[Violation] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    @property
    def record(self) -> dict[str, Any]:
        return {
            "first_violations": dump_violations(self.first_violations),
            "retried": self.retried,
            "violations": dump_violations(self.violations),
            "dropped": list(self.dropped),
        }


def claim_round(
    ask: Callable[[str | None], AgentAnswer[T]],
    paths: tuple[str, ...],
    facts: Any,
    *,
    role: str | None = None,
    required: Collection[str] | None = None,
) -> ClaimRound[T]:
    """`ask(feedback)` is one call of the agent, through shared.claims.checked_round; `required`
    defaults to the model's non-empty fields."""

    def wrong(answer: AgentAnswer[T]) -> list[Violation]:
        return check_claims(collect_texts(answer.parsed, paths), facts, role=role)

    done = checked_round(ask, wrong, repair_feedback, unparsed=(LLMOutputParseError,))
    final, still = done.final, done.still
    if done.first_wrong:
        logger.info("debate.%s: %d claim violation(s); one repair round", final.agent, len(done.first_wrong))
    if not still:
        return ClaimRound(done.answers, final.parsed.model_dump(), done.retried, done.first_wrong)
    texts = collect_texts(final.parsed, paths)
    keep = required_fields(final.parsed, texts) if required is None else {p for p in texts if p in required}
    cleaned = drop_violating(texts, still, required=keep)
    logger.info("debate.%s: dropped after the repair: %s", final.agent, cleaned.dropped)
    return ClaimRound(
        done.answers,
        apply_texts(final.parsed, cleaned),
        retried=done.retried,
        first_violations=done.first_wrong,
        violations=still,
        dropped=cleaned.dropped,
    )
