"""Every step of an analysis, from its plan, with how far each got and how long the rest should take.

A run's steps are known when it starts: the experts asked for (minus those a retry reuses), the
aggregation, the debate and the judge. A step no event has reached yet is `pending` (or `not_run`
once the run ended without it). The estimate of what is left comes from the same steps' median
durations in the last finished runs of the same kind (rules only, or with the LLM); the experts
run side by side, so their stage lasts as long as its slowest member. With no past timing for a
step still to come there is no estimate, and the page says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel

from stockdesk.coordinator.domain.dtos.session import NodeExecution, ResearchRequest, ResearchSession
from stockdesk.coordinator.domain.model.enums import NodeStatus

AGGREGATOR, DEBATE, JUDGE = "aggregator_node", "debate_node", "judge_node"
PAST_RUNS = 20  # how many recent finished runs of the same kind the estimate reads
SETTLED = {"done", "failed", "skipped", "reused", "cancelled", "not_run"}


class StepProgress(BaseModel):
    """One planned step: `pending` before it starts, then the node's own states; `not_run` when the
    run ended without reaching it. `seconds`: its duration, or its time so far while running."""

    node: str
    state: str
    started_at: datetime | None = None
    seconds: float | None = None
    error: str | None = None
    typical_seconds: float | None = None


@dataclass(frozen=True)
class StepPlan:
    """The steps a run will go through, in order, and whether its debate is skipped from the start."""

    experts: tuple[str, ...]
    reused: tuple[str, ...] = ()
    rules: bool = False  # rules only (or a rules verdict): no debate, and an LLM-free kind of run
    skip_debate: bool = False

    @property
    def nodes(self) -> list[str]:
        return [*self.experts, AGGREGATOR, DEBATE, JUDGE]


def plan_for(request: ResearchRequest, reused: Sequence[str] = ()) -> StepPlan:
    """The steps a request will run (a retry's reused experts are steps too: they show `reused`)."""
    return StepPlan(
        experts=tuple(dict.fromkeys(e.value for e in request.experts)),
        reused=tuple(reused),
        rules=request.rules_only or request.verdict_by_rules,
        skip_debate=request.skip_debate,
    )


def plan_of(session: ResearchSession) -> StepPlan:
    """The steps a stored session planned, from what it recorded of its request."""
    settings = session.llm_settings or {}
    return StepPlan(
        experts=tuple(e.value for e in session.experts),
        reused=tuple(session.reused_experts),
        rules=bool(settings.get("rules_only") or settings.get("verdict_by_rules")),
        skip_debate=session.skip_debate,
    )


@dataclass(frozen=True)
class Typical:
    """Median seconds per step over past runs of the same kind, and how many runs that was."""

    seconds: Mapping[str, float]
    runs: int

    @classmethod
    def of(cls, past: Mapping[str, Sequence[float]], runs: int) -> Typical:
        return cls({node: statistics.median(values) for node, values in past.items() if values}, runs)


def steps(
    plan: StepPlan, events: Sequence[NodeExecution], now: datetime, ended: bool, typical: Typical
) -> list[StepProgress]:
    """The planned steps with each one's latest event; a step reached that the plan did not name
    (an older session's node) is kept at the end."""
    latest: dict[str, NodeExecution] = {}
    for event in events:
        latest[event.node] = event
    order = plan.nodes + [node for node in latest if node not in plan.nodes]
    return [_step(node, latest.get(node), now, ended, typical) for node in order]


def _step(
    node: str, event: NodeExecution | None, now: datetime, ended: bool, typical: Typical
) -> StepProgress:
    usual = typical.seconds.get(node)
    if event is None:
        return StepProgress(node=node, state="not_run" if ended else "pending", typical_seconds=usual)
    state = event.status.value
    seconds = event.seconds
    if event.status is NodeStatus.RUNNING:
        if ended:
            state = "not_run"  # running when its process died: it never finished
        elif event.started_at is not None:
            seconds = round(max((now - event.started_at).total_seconds(), 0.0), 1)
    return StepProgress(
        node=node,
        state=state,
        started_at=event.started_at,
        seconds=seconds,
        error=event.error,
        typical_seconds=usual,
    )


def eta_seconds(plan: StepPlan, progress: Sequence[StepProgress]) -> float | None:
    """Seconds left: the slowest unfinished expert's remaining median, then each later step's median.
    None when a step still to come has no past timing."""
    remaining = {step.node: step for step in progress if step.state not in SETTLED}
    if not remaining:
        return 0.0
    experts = [remaining[name] for name in plan.experts if name in remaining]
    later = [remaining[name] for name in (AGGREGATOR, DEBATE, JUDGE) if name in remaining]
    if plan.rules or plan.skip_debate:
        later = [step for step in later if step.node != DEBATE]
    if plan.skip_debate:
        later = [step for step in later if step.node != JUDGE]
    if any(step.typical_seconds is None for step in [*experts, *later]):
        return None
    stage = max((_left(step) for step in experts), default=0.0)
    return round(stage + sum(_left(step) for step in later), 1)


def _left(step: StepProgress) -> float:
    assert step.typical_seconds is not None
    spent = step.seconds if step.state == "running" and step.seconds is not None else 0.0
    return max(step.typical_seconds - spent, 0.0)
