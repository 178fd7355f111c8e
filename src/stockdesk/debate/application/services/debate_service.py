"""DebateService: the experts' views -> a debate in the asked mode -> DebateOutcomeDTO.

Bull-bear mode is three LLM calls: the bull and bear advocates argue at the same time (neither
sees the other), then the resolution agent weighs both against the digests. Each answer goes
through the shared claim checks; one that fails gets one repair call with the findings, and
what still fails is dropped (`claim_checks` in the outcome records it). Panel mode is handed to
the panel service when one is configured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel

from stockdesk.debate.application.choice_text import conclusion, render_case, strongest
from stockdesk.debate.application.claim_round import (
    BEAR_TEXTS,
    BULL_TEXTS,
    RESOLUTION_REQUIRED,
    RESOLUTION_TEXTS,
    ClaimRound,
    claim_round,
)
from stockdesk.debate.application.dtos.outcome_dto import DebateOutcomeDTO
from stockdesk.debate.application.parallel import run_in_parallel
from stockdesk.debate.application.services.choices_debate import run_choices
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.domain.dtos.bull_bear import BearArgument, BullArgument
from stockdesk.debate.domain.dtos.outcome import BearCase, BullCase, RiskItem
from stockdesk.debate.domain.exceptions import InvalidExpertResultsError
from stockdesk.debate.domain.model.enums import DebateMode
from stockdesk.debate.domain.ports.agents import (
    AgentAnswer,
    CaseQuestion,
    IBearAdvocateAgentPort,
    IBullAdvocateAgentPort,
    IChoiceAgentPort,
    IResolutionAgentPort,
    ResolutionQuestion,
)
from stockdesk.research.application import EvidenceCard, ExpertView
from stockdesk.shared.claims import PLACEHOLDER
from stockdesk.shared.errors import BadRequestException

M = TypeVar("M", bound=BaseModel)


def _audit_row(answer: AgentAnswer[Any]) -> dict[str, Any]:
    return {"agent": answer.agent, "input": answer.input, "output": answer.output, "tokens": answer.tokens}


class DebateService:
    def __init__(
        self,
        bull: IBullAdvocateAgentPort,
        bear: IBearAdvocateAgentPort,
        resolution: IResolutionAgentPort,
        panel: PanelDebateService | None = None,
        *,
        today: Callable[[], date] = date.today,
        chooser: IChoiceAgentPort | None = None,
        output_style: str = "prose",
    ):
        """`output_style` "choices" (with a `chooser`): the agents pick card ids and code writes the
        sentences; "prose": the agents write, under the claim checks."""
        self._chooser = chooser if output_style == "choices" else None
        self._bull = bull
        self._bear = bear
        self._resolution = resolution
        self._panel = panel
        self._today = today

    def run(
        self,
        symbol: str,
        views: Sequence[ExpertView],
        mode: DebateMode | str = DebateMode.BULL_BEAR,
        as_of: date | None = None,
    ) -> DebateOutcomeDTO:
        symbol = (symbol or "").strip()
        if not symbol:
            raise BadRequestException("symbol is required")
        try:
            mode = DebateMode(mode)
        except ValueError:
            choices = ", ".join(m.value for m in DebateMode)
            raise BadRequestException(f"unknown debate mode '{mode}'; choose one of: {choices}") from None
        if mode is DebateMode.PANEL and self._panel is None:
            raise BadRequestException(
                "panel debate is not configured in this process; use mode 'bull-bear'",
                code="PANEL_NOT_CONFIGURED",
            )
        digests = list(views)
        if not digests:
            raise InvalidExpertResultsError("no expert view to debate: every expert failed or none ran")
        if mode is DebateMode.PANEL:
            return self._run_panel(symbol, digests, as_of or self._today())
        if self._chooser is not None and any(v.cards for v in digests):
            return run_choices(self._chooser, symbol, digests)
        return self._run_bull_bear(symbol, digests)

    def _run_bull_bear(self, symbol: str, digests: Sequence[ExpertView]) -> DebateOutcomeDTO:
        shown = {"symbol": symbol, "digests": [_shown(d) for d in digests]}
        bull, bear = run_in_parallel(
            [
                lambda: claim_round(
                    lambda feedback: self._bull.answer(CaseQuestion(symbol, digests), feedback),
                    BULL_TEXTS,
                    shown,
                    role="bull",
                ),
                lambda: claim_round(
                    lambda feedback: self._bear.answer(CaseQuestion(symbol, digests), feedback),
                    BEAR_TEXTS,
                    shown,
                    role="bear",
                ),
            ],
            name="debate-advocate",
        )
        cards = {card.id: card for view in digests for card in view.cards}
        bull_case = BullArgument.model_validate(_rendered_if_dropped(bull.data, "bull", cards))
        bear_case = BearArgument.model_validate(_rendered_if_dropped(bear.data, "bear", cards))
        weighed = {**shown, "bull": bull.data, "bear": bear.data}
        resolution = claim_round(
            lambda feedback: self._resolution.answer(
                ResolutionQuestion(symbol, digests, bull_case, bear_case), feedback
            ),
            RESOLUTION_TEXTS,
            weighed,
            required=RESOLUTION_REQUIRED,
        )
        result = resolution.data
        if result["conflict_resolution"] == PLACEHOLDER:  # written from the cards instead
            side = {"BULLISH": {1}, "BEARISH": {-1}}.get(str(result["direction"]), {1, -1})
            decisive = strongest(cards, side)
            result = {
                **result,
                "conflict_resolution": conclusion(str(result["direction"]), decisive, cards, "zh"),
            }
        rounds: dict[str, ClaimRound[Any]] = {
            "bull_advocate": bull,
            "bear_advocate": bear,
            "resolution": resolution,
        }
        return DebateOutcomeDTO(
            symbol=symbol,
            direction=result["direction"],
            confidence=result["confidence"],
            bull_case=_copy(bull_case, BullCase),
            bear_case=_copy(bear_case, BearCase),
            risk_matrix=[RiskItem.model_validate(risk) for risk in result["risk_matrix"]],
            key_disagreements=list(result["key_disagreements"]),
            conflict_resolution=result["conflict_resolution"],
            mode=DebateMode.BULL_BEAR.value,
            experts_considered=[d.expert for d in digests],
            artifact=None,
            audit=[_audit_row(a) for r in rounds.values() for a in r.answers],
            claim_checks={name: r.record for name, r in rounds.items()},
        )

    def _run_panel(self, symbol: str, digests: list[ExpertView], as_of: date) -> DebateOutcomeDTO:
        assert self._panel is not None
        result = self._panel.run(symbol, as_of, digests)
        return DebateOutcomeDTO(
            **result.outcome.model_dump(),
            mode=DebateMode.PANEL.value,
            experts_considered=[d.expert for d in digests],
            artifact=result.artifact,
            audit=list(result.audit),
            dropped_sources=result.dropped_sources,
        )


SHOWN = {
    "expert": True, "stance": True, "signal": True, "confidence": True, "key_figures": True, "text": True,
    "risks": True, "cards": {"__all__": {"id", "text_zh", "direction", "figures"}},
}  # fmt: skip


def _shown(view: ExpertView) -> dict[str, Any]:
    """What the advocates read of a view (the claim checks' facts): not the code signal's scores or
    the cards' strengths, which no prompt shows and so no argument may quote."""
    return view.model_dump(mode="json", include=SHOWN)


def _rendered_if_dropped(data: dict[str, Any], side: str, cards: dict[str, EvidenceCard]) -> dict[str, Any]:
    """An advocate's case whose thesis the claim round had to drop: the thesis is written from the
    side's strongest cards (choices mode's rendering), never left as a placeholder."""
    if data.get("core_thesis") != PLACEHOLDER:
        return data
    support = strongest(cards, {1} if side == "bull" else {-1})
    return {**data, "core_thesis": render_case(side, {"support": support}, cards, "zh").thesis}


def _copy(source: BaseModel, target: type[M]) -> M:
    return target.model_validate(source.model_dump())
