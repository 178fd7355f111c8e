"""Panel debate (spec 1-3): four experts argue in rounds, a moderator ends it and concludes.

init -> load_context -> run_round (fundamental, risk, growth, sentiment in parallel) -> moderator
-> run_round ... The moderator is not asked before `min_rounds` (every round costs four calls
already); from then on a consensus computed in code ends the debate, otherwise the moderator does,
and at `max_rounds` it ends whatever it says. The moderator's last conclusion also fills the
DebateOutcome, so the Judge reads both debate modes the same way.

load_context gives every expert the thin lists; in its turn an expert may call the tools for
more (agent -> tools -> agent, bounded). The sources it cites are re-validated against its lists
plus what its own tool calls returned in that turn: an unmatched source is dropped, never replaced.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

from pydantic import BaseModel

from stockdesk.debate.application.consensus import DEFAULT_CONSENSUS_CONFIDENCE, is_consensus
from stockdesk.debate.application.panel_context import load_context
from stockdesk.debate.application.parallel import run_in_parallel
from stockdesk.debate.application.sources import resolve_citations
from stockdesk.debate.application.tool_sources import tool_sources
from stockdesk.debate.domain.dtos.outcome import DebateOutcome
from stockdesk.debate.domain.dtos.panel import (
    PANEL_ROLES,
    ExpertTurn,
    ModeratorDecision,
    PanelArtifact,
    PanelContext,
    PanelRole,
    PanelRound,
)
from stockdesk.debate.domain.model.enums import DebateDirection, PanelAction
from stockdesk.debate.domain.ports.panel import (
    ExpertAnswer,
    IModeratorAgentPort,
    IPanelExpertAgentPort,
    IPanelToolsPort,
)
from stockdesk.research.application import ExpertView
from stockdesk.shared.errors import BadRequestException, NotFoundException

logger = logging.getLogger(__name__)
DIRECTION = {
    PanelAction.BUY: DebateDirection.BULLISH,
    PanelAction.SELL: DebateDirection.BEARISH,
    PanelAction.HOLD: DebateDirection.NEUTRAL,
}


class PanelResult(BaseModel):
    outcome: DebateOutcome
    artifact: dict[str, Any]
    audit: list[dict[str, Any]]
    dropped_sources: int
    consensus: bool
    rounds: int
    tool_calls: int = 0


class PanelDebateService:
    def __init__(
        self,
        tools: IPanelToolsPort,
        expert_agent: IPanelExpertAgentPort,
        moderator: IModeratorAgentPort,
        *,
        min_rounds: int = 2,
        max_rounds: int = 4,
        consensus_threshold: float = DEFAULT_CONSENSUS_CONFIDENCE,
    ):
        if min_rounds < 1:
            raise BadRequestException(f"min_rounds must be at least 1 (got {min_rounds})")
        if max_rounds < min_rounds:
            raise BadRequestException(f"max_rounds ({max_rounds}) must be >= min_rounds ({min_rounds})")
        if not 0.0 <= consensus_threshold <= 1.0:
            raise BadRequestException(f"consensus_threshold must be in [0, 1] (got {consensus_threshold})")
        self._tools = tools
        self._expert = expert_agent
        self._moderator = moderator
        self.min_rounds = min_rounds
        self.max_rounds = max_rounds
        self.threshold = consensus_threshold

    def run(
        self,
        symbol: str,
        as_of: date,
        digests: list[ExpertView],
        on_progress: Callable[[str], None] | None = None,
    ) -> PanelResult:
        """The debate; `on_progress` hears one line per finished round and moderator decision."""
        ticker = symbol.strip().upper()
        if not ticker:
            raise BadRequestException("a panel debate needs a symbol")
        report = on_progress or (lambda line: None)
        context = load_context(self._tools, ticker, as_of)
        if not (context.news or context.price or context.filings):
            raise NotFoundException(
                f"nothing to debate: no news, prices or filings of {ticker} up to {as_of} in the store "
                "(import them first)",
                code="NO_PANEL_DATA",
            )
        rounds: list[PanelRound] = []
        audit: list[dict[str, Any]] = []
        dropped = tool_calls = 0
        consensus = False
        decision: ModeratorDecision | None = None
        for round_no in range(1, self.max_rounds + 1):
            played, round_dropped, round_calls = self._round(round_no, context, digests, rounds, audit)
            rounds.append(played)
            dropped += round_dropped
            tool_calls += round_calls
            actions = ", ".join(f"{r} {t.action.value}" for r, t in played.turns().items())
            report(f"round {round_no}: {actions} ({round_calls} tool calls)")
            if round_no < self.min_rounds:
                continue
            consensus = is_consensus(played.turns().values(), self.threshold)
            must_end = consensus or round_no == self.max_rounds
            answer = self._moderator.decide(
                context, rounds, max_rounds=self.max_rounds, consensus=consensus, must_end=must_end
            )
            audit.append(_audit("panel.moderator", round_no, answer.input, answer.output, answer.tokens))
            decision = answer.parsed
            report(
                f"moderator: {'end' if must_end else decision.decision} ({decision.conclusion.action.value})"
            )
            if must_end or decision.decision == "end":
                break
        assert decision is not None  # the loop always reaches min_rounds <= max_rounds
        artifact = PanelArtifact(
            ticker=ticker, date=as_of.strftime("%Y%m%d"), rounds=rounds, conclusion=decision.conclusion
        )
        return PanelResult(
            outcome=_outcome(ticker, decision),
            artifact=artifact.model_dump(mode="json"),
            audit=audit,
            dropped_sources=dropped,
            consensus=consensus,
            rounds=len(rounds),
            tool_calls=tool_calls,
        )

    def _round(
        self,
        round_no: int,
        context: PanelContext,
        digests: list[ExpertView],
        previous: list[PanelRound],
        audit: list[dict[str, Any]],
    ) -> tuple[PanelRound, int, int]:
        """The four experts in parallel, in copies of the caller's context (see run_in_parallel).

        Returns the round, the cited sources dropped and the tool calls the experts made.
        """
        earlier = list(previous)
        speak = self._expert.speak
        calls = [partial(speak, role, round_no, context, digests, earlier) for role in PANEL_ROLES]
        replies = run_in_parallel(calls, name="panel")
        answers: dict[PanelRole, ExpertAnswer] = dict(zip(PANEL_ROLES, replies, strict=True))
        turns: dict[str, ExpertTurn] = {}
        dropped = 0
        for role in PANEL_ROLES:
            answer = answers[role]
            allowed = [*context.allowed_for(role), *tool_sources(answer.tools)]
            kept, lost = resolve_citations(answer.parsed.sources, allowed)
            dropped += lost
            if lost:
                logger.warning(
                    "panel.%s round %d: %d cited source(s) not in its list dropped", role, round_no, lost
                )
            reply = answer.parsed
            turns[role] = ExpertTurn(
                text=reply.text, action=reply.action, confidence=reply.confidence, sources=kept
            )
            row = _audit(f"panel.{role}", round_no, answer.input, answer.output, answer.tokens)
            row["tool_calls"] = [use.model_dump() for use in answer.tools]
            audit.append(row)
        calls = sum(len(a.tools) for a in answers.values())
        return PanelRound(round=round_no, **turns), dropped, calls


def _audit(agent: str, round_no: int, prompt: str, output: str, tokens: int) -> dict[str, Any]:
    return {"agent": agent, "round": round_no, "input": prompt, "output": output, "tokens": tokens}


def _outcome(ticker: str, decision: ModeratorDecision) -> DebateOutcome:
    conclusion = decision.conclusion
    return DebateOutcome(
        symbol=ticker,
        direction=DIRECTION[conclusion.action],
        confidence=conclusion.confidence,
        bull_case=decision.bull_case,
        bear_case=decision.bear_case,
        risk_matrix=decision.risk_matrix,
        key_disagreements=decision.key_disagreements,
        conflict_resolution=decision.conflict_resolution.strip() or conclusion.text,
    )
