"""Panel debate types: sources, expert turns, rounds, the artifact, the moderator's answer, the context.

The artifact keeps exactly the spec's four top-level fields so later stages (script writers) can take
every turn as context; the moderator's answer carries the DebateOutcome fields as well, so the Judge
reads a panel debate the same way as a bull-bear one.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from stockdesk.debate.domain.dtos.outcome import BearCase, BullCase, DebateOutcome, RiskItem
from stockdesk.debate.domain.model.enums import PanelAction

PanelRole = Literal["fundamental", "risk", "growth", "sentiment"]
PANEL_ROLES: tuple[PanelRole, ...] = ("fundamental", "risk", "growth", "sentiment")
SourceKind = Literal["article", "chart", "event", "sec_filing"]

# which kinds of source (and so which context sections) each expert is given
ROLE_SOURCE_KINDS: dict[PanelRole, tuple[SourceKind, ...]] = {
    "fundamental": ("sec_filing", "chart", "article"),
    "risk": ("sec_filing", "chart", "article", "event"),
    "growth": ("sec_filing", "article"),
    "sentiment": ("article", "chart", "event"),
}


# ---- sources (spec 2.1) ---------------------------------------------------------------------------
class ArticleSource(BaseModel):
    type: Literal["article"] = "article"
    pk: str
    title: str


class ChartSource(BaseModel):
    type: Literal["chart"] = "chart"
    ticker: str
    start_date: str = Field(description="YYYY-MM-DD")
    end_date: str = Field(description="YYYY-MM-DD")


class EventSource(BaseModel):
    type: Literal["event"] = "event"
    id: str
    title: str
    date: str = Field(description="YYYY-MM-DD")


class SecFilingSource(BaseModel):
    type: Literal["sec_filing"] = "sec_filing"
    ticker: str
    form: str
    filed_date: str = Field(description="YYYY-MM-DD")
    accession_number: str


Source = Annotated[ArticleSource | ChartSource | EventSource | SecFilingSource, Field(discriminator="type")]


def _upper(value: Any) -> Any:
    """Small models write `buy` or ` Hold `; the vocabulary itself stays closed."""
    return value.strip().upper() if isinstance(value, str) else value


# ---- turns, rounds, artifact (spec 2) ---------------------------------------------------------------
class ExpertTurn(BaseModel):
    text: str
    action: PanelAction
    confidence: float = Field(ge=0.0, le=1.0)
    sources: list[Source] = Field(default_factory=list)


class PanelRound(BaseModel):
    round: int = Field(ge=1)
    fundamental: ExpertTurn
    risk: ExpertTurn
    growth: ExpertTurn
    sentiment: ExpertTurn

    def turns(self) -> dict[PanelRole, ExpertTurn]:
        return {role: getattr(self, role) for role in PANEL_ROLES}


class Conclusion(BaseModel):
    text: str = Field(min_length=1)
    action: PanelAction
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("action", mode="before")
    @classmethod
    def _action(cls, value: Any) -> Any:
        return _upper(value)


class PanelArtifact(BaseModel):
    """The spec's debate JSON: `model_dump(mode="json")` has exactly these four keys."""

    ticker: str
    date: str = Field(pattern=r"^\d{8}$", description="YYYYMMDD")
    rounds: list[PanelRound]
    conclusion: Conclusion


# ---- what the models answer ---------------------------------------------------------------------------
class ExpertReply(BaseModel):
    """One expert's raw answer: sources are short ids from its list (or whole source objects).

    Code re-validates every cited source against the expert's allowed list before it becomes a turn.
    """

    text: str = Field(min_length=1)
    action: PanelAction
    confidence: float = Field(ge=0.0, le=1.0)
    sources: list[str | dict[str, Any]] = Field(default_factory=list)

    @field_validator("action", mode="before")
    @classmethod
    def _action(cls, value: Any) -> Any:
        return _upper(value)


class ModeratorDecision(BaseModel):
    """The moderator's answer: go on or stop, its conclusion, and the DebateOutcome fields."""

    decision: Literal["continue", "end"]
    conclusion: Conclusion
    bull_case: BullCase = Field(default_factory=BullCase)
    bear_case: BearCase = Field(default_factory=BearCase)
    risk_matrix: list[RiskItem] = Field(default_factory=list)
    key_disagreements: list[str] = Field(default_factory=list)
    conflict_resolution: str = ""

    @field_validator("decision", mode="before")
    @classmethod
    def _decision(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class PanelOutcome(DebateOutcome):
    """The panel's DebateOutcome with its turns' claim-check records, keyed "<role>/<round>".

    A field of the outcome (not only of the panel's result) so that the debate service's
    `DebateOutcomeDTO(**outcome.model_dump(), ...)` carries it into `claim_checks` as bull-bear does.
    """

    claim_checks: dict[str, Any] = Field(default_factory=dict)


# ---- the context load_context builds ------------------------------------------------------------------
class CitableSource(BaseModel):
    """A source with the short id (N1, C1, F1) the prompt lists, so a small model can copy it."""

    id: str
    source: Source


class NewsBrief(BaseModel):
    pk: str
    title: str
    date: str = Field(description="YYYY-MM-DD (UTC)")


class PriceSummary(BaseModel):
    """30 days of daily bars reduced in code; the experts never see raw rows."""

    start_date: str
    end_date: str
    days: int
    first_close: float
    last_close: float
    pct_change: float
    high: float
    low: float
    avg_volume: float | None = None


class FilingBrief(BaseModel):
    form: str
    filed_date: str
    accession_number: str


class PanelContext(BaseModel):
    """The thin lists every expert is shown (spec 4), built once per debate, all as of `as_of`."""

    ticker: str
    as_of: date
    news: list[NewsBrief] = Field(default_factory=list)
    price: PriceSummary | None = None
    intraday: str = Field(description="intraday summary, or why there is none")
    filings: list[FilingBrief] = Field(default_factory=list)
    sources: list[CitableSource] = Field(default_factory=list)

    def allowed_for(self, role: PanelRole) -> list[CitableSource]:
        kinds = ROLE_SOURCE_KINDS[role]
        return [s for s in self.sources if s.source.type in kinds]
