"""What the report templates read: plain frozen records, every field already worded and formatted.

Built by reports.view from a ResearchSession; templates only loop over these and print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stockdesk.coordinator.presentation.reports.charts_view import ChartView
from stockdesk.coordinator.presentation.reports.formatting import DASH
from stockdesk.shared.figures import ShownFigure


@dataclass(frozen=True)
class Pair:
    name: str
    value: str


@dataclass(frozen=True)
class Flag:
    text: str  # code's words
    level: str  # "warn" (the answer may be wrong) or "info" (a guard acted and fixed it)
    detail: str = ""  # what the model wrote that the flag is about (its numbers, its instructions)

    @property
    def whole(self) -> str:
        return f"{self.text} {self.detail}" if self.detail else self.text


@dataclass(frozen=True)
class VerdictCard:
    present: bool
    missing_reason: str = ""  # why there is no verdict, in the view's language
    missing_detail: str = ""  # the stored error it quotes (as stored)
    action: str = DASH
    tone: str = "none"
    position: str = DASH
    confidence: str = DASH
    entry_strategy: str = DASH
    stop_loss: str = DASH
    take_profit: str = DASH
    time_horizon: str = DASH
    reasoning: str = DASH
    reasoning_by_code: bool = False  # the reasoning is code's words (in the view's language), not the model's
    rules_applied: list[str] = field(default_factory=list)
    risk_warnings: list[str] = field(default_factory=list)
    risks_by_code: bool = False
    source: str = "llm"  # llm | rules (the code-only verdict)
    plan: list[Pair] = field(default_factory=list)  # the trade plan's numbers, computed in code
    plan_rules: list[str] = field(default_factory=list)  # how each level and the size were set
    adjustments: list[str] = field(default_factory=list)  # what code changed, in plain words
    support: str = ""
    stability: str = ""
    rules_verdict: str = ""
    dropped: list[str] = field(default_factory=list)  # claims removed for contradicting the input
    insufficient: str = ""  # "insufficient evidence" in words: fewer than two experts had data
    experts_with_data: list[str] = field(default_factory=list)
    experts_needed: int = 0  # how many experts with data a verdict needs (insufficient only)
    probability: str = ""  # the calibrated P(up) in words, or "uncalibrated"
    calibration: str = ""  # on how many past outcomes, to which date, with what ECE
    signal_model: str = ""  # the code model's view beside an LLM verdict
    lessons: list[str] = field(default_factory=list)  # past verdicts shown to a reflecting judge
    p_up: str = ""  # the same as figures for a page to word in its language ("52%"; "" uncalibrated)
    p_horizon: str = ""
    cal_n: str = ""
    cal_to: str = ""
    cal_ece: str = ""


@dataclass(frozen=True)
class ExpertRow:
    name: str
    title: str
    status: str  # ok | failed | missing
    reused: bool = False
    stance: str = DASH  # in the view's language
    stance_key: str = ""  # bullish | neutral | bearish (a page's badge colour)
    signal: str = DASH
    confidence: str = DASH
    code_signal: str = DASH  # the rules' reading of the same snapshot, no LLM
    code_reasons: list[str] = field(default_factory=list)
    key_numbers: list[ShownFigure] = field(default_factory=list)  # labelled, with units
    reasoning: str = ""
    reasoning_by_code: bool = False  # rules-only: the code signal's reasons, in the view's language
    risks: list[str] = field(default_factory=list)
    grounding: str = ""
    flags: list[Flag] = field(default_factory=list)
    guard_summary: str = "ok"
    error: str = ""


@dataclass(frozen=True)
class Agreement:
    majority: str
    ratio: str
    mean_confidence: str
    bullish: int
    neutral: int
    bearish: int
    succeeded: int
    failed: int
    without_data: list[str] = field(default_factory=list)  # answered without data: missing, not voices


@dataclass(frozen=True)
class PanelCell:
    role: str
    action: str
    confidence: str
    sources: int
    text: str


@dataclass(frozen=True)
class PanelRound:
    number: str
    cells: list[PanelCell]


@dataclass(frozen=True)
class Panel:
    rounds: list[PanelRound]
    conclusion_action: str
    conclusion_confidence: str
    conclusion_text: str


@dataclass(frozen=True)
class RiskRow:
    risk: str
    probability: str
    impact: str
    mitigation: str


@dataclass(frozen=True)
class Debate:
    present: bool
    missing_reason: str = ""
    missing_detail: str = ""
    mode: str = DASH
    direction: str = DASH
    confidence: str = DASH
    experts_considered: list[str] = field(default_factory=list)
    bull_thesis: str = DASH
    bull_arguments: list[str] = field(default_factory=list)
    bull_risks: list[str] = field(default_factory=list)
    bear_thesis: str = DASH
    bear_arguments: list[str] = field(default_factory=list)
    bear_strengths: list[str] = field(default_factory=list)
    resolution: str = DASH
    disagreements: list[str] = field(default_factory=list)
    risk_matrix: list[RiskRow] = field(default_factory=list)
    panel: Panel | None = None
    dropped_sources: int = 0
    english: list[str] = field(default_factory=list)
    """choices mode: the same sentences in English, each written by code from the cards picked"""


@dataclass(frozen=True)
class NodeRow:
    node: str
    status: str
    seconds: str
    error: str


@dataclass(frozen=True)
class Footer:
    session_id: str
    parent_session_id: str
    status: str
    started_at: str
    finished_at: str
    duration: str
    llm_calls: str
    tokens: str
    debate_mode: str
    nodes: list[NodeRow]


@dataclass(frozen=True)
class PositionCard:
    """A holder's position and plan ("Your position"), built by reports.position_view."""

    action: str  # ADD | HOLD | TRIM | EXIT (the report words it with `action.*`)
    base_action: str  # the verdict's BUY | HOLD | SELL it was derived from
    tone: str
    reason: str
    position: list[Pair] = field(default_factory=list)
    plan: list[Pair] = field(default_factory=list)


@dataclass(frozen=True)
class ReportView:
    symbol: str
    as_of: str
    status: str
    verdict: VerdictCard
    experts: list[ExpertRow]
    agreement: Agreement
    debate: Debate
    errors: list[Pair]
    footer: Footer
    charts: list[ChartView] = field(default_factory=list)  # reports.charts_view
    as_of_clamped: bool = False  # no date was asked: the newest stored bar's date was taken
    position: PositionCard | None = None  # the symbol was held on the date: "Your position"
