"""`stockdesk research valuation|technical|financial|macro|catalyst SYMBOL`: one expert (or its snapshot)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console
from rich.panel import Panel

from stockdesk.research.application.dtos import ExpertTrace
from stockdesk.research.application.financial_auditor_service import FinancialAuditorService
from stockdesk.research.application.search_expert_service import SearchExpertService
from stockdesk.research.application.technical_analyst_service import TechnicalAnalystService
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.container import ResearchContainer
from stockdesk.shared.dates import parse_day

console = Console()


# The five experts' services (macro and catalyst are the two SearchExpertServices): each builds its
# snapshot and runs, which is all a command calls.
ExpertService = (
    ValuationModelerService | TechnicalAnalystService | FinancialAuditorService | SearchExpertService
)


def intel_lines(result: Any) -> list[str]:
    """Macro intelligence and catalyst detective: verdict, dimensions, events, sources."""
    is_macro = hasattr(result, "macro_environment")
    verdict = result.macro_environment if is_macro else result.catalyst_assessment
    lines = [f"[bold]{verdict}[/] (confidence {result.confidence_score:.2f})"]
    lines += [f"- {d.dimension}: {d.assessment}" for d in result.dimension_analyses]
    if is_macro:
        lines += ["[bold]opportunities[/]", *[f"- {o}" for o in result.key_opportunities]]
        lines += ["[bold]risks[/]", *[f"- {r}" for r in result.key_risks]]
    else:
        for title, events in (
            ("positive", result.positive_catalysts),
            ("negative", result.negative_catalysts),
        ):
            lines.append(f"[bold]{title} catalysts[/]")
            lines += [
                f"- {c.event} ({c.expected_impact} impact, {c.timeframe}, p={c.probability})" for c in events
            ]
    lines += ["[bold]sources[/]", *[f"- {u}" for u in result.information_sources]]
    return [*lines, "", result.macro_summary if is_macro else result.catalyst_summary]


def headline(result: Any) -> list[str]:
    """The expert-specific first lines of the panel."""
    if hasattr(result, "information_sources"):
        return intel_lines(result)
    if hasattr(result, "valuation_verdict"):
        r = result.estimated_intrinsic_value_range
        return [
            f"[bold]{result.valuation_verdict}[/] (confidence {result.confidence_score:.2f})",
            f"intrinsic value: {r.lower_bound} .. {r.upper_bound}",
            "[bold]evidence[/]", *[f"- {e}" for e in result.key_evidence],
            "[bold]risks[/]", *[f"- {e}" for e in result.risk_factors],
            "", result.reasoning_summary,
        ]  # fmt: skip
    if hasattr(result, "key_technical_levels"):
        levels = result.key_technical_levels
        return [
            f"[bold]{result.signal}[/] (confidence {result.confidence:.2f})",
            f"support {levels.support} · resistance {levels.resistance}",
            "[bold]evidence[/]", *[f"- {e}" for e in result.evidence],
            f"[bold]risk[/] {result.risk_warning}", "", result.summary_reasoning,
        ]  # fmt: skip
    return [
        f"[bold]{result.signal}[/] score {result.financial_score}/100 (confidence {result.confidence:.2f})",
        *[f"- {d.dimension}: {d.score} {d.assessment}" for d in result.dimension_analyses],
        "[bold]risks[/]", *[f"- {r}" for r in result.key_risks],
        "", result.summary_reasoning,
    ]  # fmt: skip


def guard_line(result: ExpertTrace) -> str:
    g = result.guards
    state = "[red]flagged[/]" if g.flagged else "[green]passed[/]"
    return (
        f"guards {state}: {result.grounding.numbers_checked} numbers checked, "
        f"ungrounded: {result.grounding.ungrounded or 'none'}; "
        f"trade instructions: {g.trade_instructions or 'none'}; retried: {g.retried}"
        + (f"; dropped sources not in the context: {g.unverified_sources}" if g.unverified_sources else "")
        + ("; nothing found: held to 数据不足" if g.no_information else "")
    )


def run_expert(
    service: ExpertService, name: str, symbol: str, as_of: str | None, as_json: bool, snapshot_only: bool
) -> None:
    day = parse_day(as_of)
    if snapshot_only:
        snapshot = service.build_snapshot(symbol, day).model_dump(mode="json")
        typer.echo(json.dumps(snapshot, ensure_ascii=False, indent=2))
        return
    with console.status(f"{name} is thinking (local model: ~30-90 s)...", spinner="dots"):
        result = service.run(symbol, day)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    body = "\n".join([*headline(result), "", guard_line(result)])
    console.print(Panel(body, title=f"{name} · {result.symbol} · as of {result.as_of}"))


def build_research_cli(get_container: Callable[[], ResearchContainer]) -> typer.Typer:
    app = typer.Typer(help="Research experts: numbers in code, judgement from the LLM.", no_args_is_help=True)
    experts: dict[str, tuple[str, Callable[[ResearchContainer], ExpertService]]] = {
        "valuation": ("valuation modeler", lambda c: c.valuation_modeler),
        "technical": ("technical analyst", lambda c: c.technical_analyst),
        "financial": ("financial auditor", lambda c: c.financial_auditor),
        "macro": ("macro intelligence", lambda c: c.macro_intelligence),
        "catalyst": ("catalyst detective", lambda c: c.catalyst_detective),
    }

    def register(command: str, title: str, pick: Callable[[ResearchContainer], ExpertService]) -> None:
        @app.command(command, help=f"Run the {title} (or print its snapshot with --snapshot-only).")
        def _run(
            symbol: str = typer.Argument(..., help="e.g. 600519.SH, 000338.SZ"),
            as_of: str | None = typer.Option(None, "--as-of", help="YYYY-MM-DD; default today."),
            as_json: bool = typer.Option(False, "--json", help="Print JSON only."),
            snapshot_only: bool = typer.Option(False, "--snapshot-only", help="Numbers only; no LLM call."),
        ) -> None:
            run_expert(pick(get_container()), title, symbol, as_of, as_json, snapshot_only)

    for command, (title, pick) in experts.items():
        register(command, title, pick)
    return app
