"""Panel debate (spec 1-3): four experts argue in rounds, a moderator ends it and concludes.

init -> load_context -> run_round (fundamental, risk, growth, sentiment in parallel) -> moderator
-> run_round ... The moderator is not asked before `min_rounds` (every round costs four calls
already); from then on a consensus computed in code ends the debate, otherwise the moderator does,
and at `max_rounds` it ends whatever it says. The moderator's last conclusion also fills the
DebateOutcome, so the Judge reads both debate modes the same way.

load_context gives every expert the thin lists; in its turn an expert may call the tools for
more (agent -> tools -> agent, bounded). The sources it cites are re-validated against its lists
plus what its own tool calls returned in that turn: an unmatched source is dropped, never replaced.

Each turn's text goes through the same claim round as the bull/bear advocates (claim_round.py):
checked against what that expert was shown (the views as its prompt renders them, its context
sections, the earlier rounds, its own tool results), one repair call with the findings, and what
still violates is dropped. The record is kept per "<role>/<round>" in the outcome's
`claim_checks` and on the turn's audit row. None of the four roles argues a side (each may say
BUY, SELL or HOLD), so the side checks (role_reversal, side_contradiction) stay off.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

from pydantic import BaseModel

from stockdesk.debate.application.claim_round import ClaimRound, claim_round
from stockdesk.debate.application.consensus import DEFAULT_CONSENSUS_CONFIDENCE, is_consensus
from stockdesk.debate.application.panel_context import load_context
from stockdesk.debate.application.panel_tools import PanelTools
from stockdesk.debate.application.parallel import run_in_parallel
from stockdesk.debate.application.sources import resolve_citations
from stockdesk.debate.application.tool_sources import tool_sources
from stockdesk.debate.domain.dtos.panel import (
    PANEL_ROLES,
    ROLE_SOURCE_KINDS,
    ExpertReply,
    ExpertTurn,
    ModeratorDecision,
    PanelArtifact,
    PanelContext,
    PanelOutcome,
    PanelRole,
    PanelRound,
)
from stockdesk.debate.domain.model.enums import DebateDirection, PanelAction
from stockdesk.debate.domain.ports.agents import AgentAnswer
from stockdesk.debate.domain.ports.panel import (
    ExpertAnswer,
    IModeratorAgentPort,
    IPanelExpertAgentPort,
    ModeratorQuestion,
    PanelTurn,
)
from stockdesk.research.application import ExpertView
from stockdesk.shared.errors import BadRequestException, NotFoundException

logger = logging.getLogger(__name__)
PANEL_TEXTS = ("text",)  # the one prose field of an expert's turn
SHOWN_CARDS = 3  # render_digests shows a view's first three cards, its first two risks
SHOWN_RISKS = 2
DIRECTION = {
    PanelAction.BUY: DebateDirection.BULLISH,
    PanelAction.SELL: DebateDirection.BEARISH,
    PanelAction.HOLD: DebateDirection.NEUTRAL,
}


class PanelResult(BaseModel):
    outcome: PanelOutcome
    artifact: dict[str, Any]
    audit: list[dict[str, Any]]
    dropped_sources: int
    consensus: bool
    rounds: int
    tool_calls: int = 0

    @property
    def claim_checks(self) -> dict[str, Any]:
        """Per "<role>/<round>": the violations found, whether a repair was asked, what was dropped."""
        return self.outcome.claim_checks


class PanelDebateService:
    def __init__(
        self,
        tools: PanelTools,
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
        checks: dict[str, Any] = {}
        consensus = False
        decision: ModeratorDecision | None = None
        for round_no in range(1, self.max_rounds + 1):
            played, round_dropped, round_calls = self._round(
                round_no, context, digests, rounds, audit, checks
            )
            rounds.append(played)
            dropped += round_dropped
            tool_calls += round_calls
            actions = ", ".join(f"{r} {t.action.value}" for r, t in played.turns().items())
            report(f"round {round_no}: {actions} ({round_calls} tool calls)")
            if round_no < self.min_rounds:
                continue
            consensus = is_consensus(played.turns().values(), self.threshold)
            must_end = consensus or round_no == self.max_rounds
            answer = self._moderator.answer(
                ModeratorQuestion(context, rounds, self.max_rounds, consensus=consensus, must_end=must_end)
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
            outcome=_outcome(ticker, decision, checks),
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
        checks: dict[str, Any],
    ) -> tuple[PanelRound, int, int]:
        """The four experts in parallel, in copies of the caller's context (see run_in_parallel);
        each turn is claim-checked (and repaired) inside its own parallel call.

        Returns the round, the cited sources dropped and the tool calls the experts made; the
        audit rows and claim-check records are appended to `audit` and `checks`.
        """
        earlier = list(previous)
        calls = [
            partial(self._checked_turn, PanelTurn(role, round_no, context, digests, earlier))
            for role in PANEL_ROLES
        ]
        replies = run_in_parallel(calls, name="panel")
        turns: dict[str, ExpertTurn] = {}
        dropped = tool_calls = 0
        for role, (checked, answers) in zip(PANEL_ROLES, replies, strict=True):
            reply = ExpertReply.model_validate(checked.data)
            uses = [use for answer in answers for use in answer.tools]
            allowed = [*context.allowed_for(role), *tool_sources(uses)]
            kept, lost = resolve_citations(reply.sources, allowed)
            dropped += lost
            tool_calls += len(uses)
            if lost:
                logger.warning(
                    "panel.%s round %d: %d cited source(s) not in its list dropped", role, round_no, lost
                )
            turns[role] = ExpertTurn(
                text=reply.text, action=reply.action, confidence=reply.confidence, sources=kept
            )
            checks[f"{role}/{round_no}"] = checked.record
            audit += _turn_audit(role, round_no, answers, checked.record)
        return PanelRound(round=round_no, **turns), dropped, tool_calls

    def _checked_turn(self, turn: PanelTurn) -> tuple[ClaimRound[ExpertReply], list[ExpertAnswer]]:
        """One expert's turn through `claim_round`; also returns every call made (for the audit
        and the sources its tool calls returned). A repair call's tool results join the facts
        before its answer is checked: the expert may quote what it fetched in that call."""
        seen = seen_by(turn.role, turn.context, turn.digests, turn.previous)
        answers: list[ExpertAnswer] = []

        def ask(feedback: str | None) -> AgentAnswer[ExpertReply]:
            answer = self._expert.answer(turn, feedback)  # the repair passes the findings as feedback
            answers.append(answer)
            seen["tool_results"] += [use.result for use in answer.tools if use.result is not None]
            # its own confidence is a number it gives, not a claim about the data
            seen["own_confidence"].append(answer.parsed.confidence)
            return AgentAnswer[ExpertReply](
                agent=f"panel.{turn.role}",
                input=answer.input,
                output=answer.output,
                parsed=answer.parsed,
                tokens=answer.tokens,
            )

        return claim_round(ask, PANEL_TEXTS, seen, role=None), answers


def seen_by(
    role: PanelRole, context: PanelContext, digests: list[ExpertView], previous: list[PanelRound]
) -> dict[str, Any]:
    """What an expert's prompt shows it (the claim checks' facts): each view as render_digests
    gives it (signal or stance, confidence, its first cards, its first risks; the text when it has
    no card), the context sections of its role, and the earlier rounds' turns."""
    kinds = ROLE_SOURCE_KINDS[role]
    views = [
        {
            "expert": v.expert,
            "signal": v.signal or v.stance,
            "confidence": v.confidence,
            "cards": [{"text_zh": c.text_zh, "figures": c.figures} for c in v.cards[:SHOWN_CARDS]],
            "text": "" if v.cards else v.text,
            "risks": v.risks[:SHOWN_RISKS],
        }
        for v in digests
    ]
    shown: dict[str, Any] = {
        "symbol": context.ticker,
        "views": views,
        "sources": [c.model_dump(mode="json") for c in context.allowed_for(role)],
        "previous": [r.model_dump(mode="json") for r in previous],
        "tool_results": [],
        "own_confidence": [],
    }
    if "article" in kinds:
        shown["news"] = [n.model_dump(mode="json") for n in context.news]
    if "chart" in kinds:
        shown["price"] = context.price.model_dump(mode="json") if context.price else None
        shown["intraday"] = context.intraday
    if "sec_filing" in kinds:
        shown["filings"] = [f.model_dump(mode="json") for f in context.filings]
    return shown


def _turn_audit(
    role: PanelRole, round_no: int, answers: list[ExpertAnswer], record: dict[str, Any]
) -> list[dict[str, Any]]:
    """One row per call of the turn (the first answer, then the repair); the last carries the record."""
    rows = []
    for index, answer in enumerate(answers):
        row = _audit(f"panel.{role}", round_no, answer.input, answer.output, answer.tokens)
        row["tool_calls"] = [use.model_dump() for use in answer.tools]
        row["repair"] = index > 0
        rows.append(row)
    rows[-1]["claim_checks"] = record
    return rows


def _audit(agent: str, round_no: int, prompt: str, output: str, tokens: int) -> dict[str, Any]:
    return {"agent": agent, "round": round_no, "input": prompt, "output": output, "tokens": tokens}


def _outcome(ticker: str, decision: ModeratorDecision, checks: dict[str, Any]) -> PanelOutcome:
    conclusion = decision.conclusion
    return PanelOutcome(
        symbol=ticker,
        direction=DIRECTION[conclusion.action],
        confidence=conclusion.confidence,
        bull_case=decision.bull_case,
        bear_case=decision.bear_case,
        risk_matrix=decision.risk_matrix,
        key_disagreements=decision.key_disagreements,
        conflict_resolution=decision.conflict_resolution.strip() or conclusion.text,
        claim_checks=checks,
    )
