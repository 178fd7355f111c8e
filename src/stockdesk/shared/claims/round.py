"""The one checked round every LLM answer goes through: ask, check, one re-ask, keep, drop the rest.

Research's experts, the debate's advocates, resolution and panel, and the judge use it, in prose
mode (what is wrong is a `Violation` of the claim checks; the caller drops the sentence or bullet)
and in choices mode (what is wrong is a refused pick; the caller drops the pick). What differs per
caller is a parameter: what counts as wrong, how the re-ask is worded, which problems are worth a
second call (`reask`) and whether a re-asked answer may replace the first (`accept`: the judge keeps
its first action). What the kept answer still gets wrong is returned as `still`: the caller drops
it, never guesses.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

logger = logging.getLogger(__name__)
A = TypeVar("A")
W = TypeVar("W")


@dataclass
class CheckedRound(Generic[A, W]):
    """Every answer parsed (for the audit), the one kept, what the first answer got wrong and what
    is still wrong in the kept one."""

    answers: list[A]
    final: A
    first_wrong: list[W] = field(default_factory=list)
    still: list[W] = field(default_factory=list)
    retried: bool = False  # a re-ask was made (its answer may not have parsed or been accepted)

    def record(self) -> dict[str, Any]:
        """Choices mode's audit record (what was wrong are strings there)."""
        return {"first_wrong": self.first_wrong, "retried": self.retried, "dropped": self.still}


def listed(header: str) -> Callable[[list[str]], str]:
    """Choices mode's re-ask: `header`, then one `- reason` line per refused pick."""
    return lambda wrong: header + "\n" + "\n".join(f"- {w}" for w in wrong)


def checked_round(
    ask: Callable[[str | None], A],
    wrong: Callable[[A], list[W]],
    feedback: Callable[[list[W]], str],
    *,
    unparsed: tuple[type[Exception], ...],
    reask: Callable[[list[W]], bool] = bool,
    accept: Callable[[A, A], bool] = lambda first, retry: True,
) -> CheckedRound[A, W]:
    """`ask(None)`, its `wrong` list; when `reask(wrong)` (default: any), one `ask(feedback(wrong))`,
    kept when `accept(first, retry)`. A re-ask raising one of `unparsed` (the caller's parse error:
    this kernel imports nothing of the desk's) keeps the first answer."""
    first = ask(None)
    first_wrong = wrong(first)
    done: CheckedRound[A, W] = CheckedRound([first], first, first_wrong, first_wrong)
    if not reask(first_wrong):
        return done
    done.retried = True
    try:
        retry = ask(feedback(first_wrong))
    except unparsed:
        logger.warning("a re-ask with feedback did not parse; the first answer is kept")
        return done
    done.answers.append(retry)
    if accept(first, retry):
        done.final = retry
        done.still = wrong(retry)
    return done
