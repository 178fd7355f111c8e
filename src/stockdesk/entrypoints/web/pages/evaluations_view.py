"""The evaluation pages' view models: the start form, a job's progress, a finished report's tables.

The form is read through the REST body (`EvaluationBody`), so the page accepts exactly what
`POST /api/v1/evaluations` accepts. The report's figures come from the stored report's overview
(`EvaluationService.overview`) as the HTML report shows them (its charts and the evaluation's own
`pct`/`num` formatters); nothing is recomputed here. The verdict list is one page of the overview's
verdict table, sorted on the server (`?h=&sort=&dir=&page=`), so it works without a script.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError

from stockdesk.entrypoints.web.pages.form_text import refused, split_list, stamp
from stockdesk.entrypoints.web.pages.jobs_view import CountedJob, JobPanel
from stockdesk.evaluation.application.charts import report_charts
from stockdesk.evaluation.application.formatting import num, pct, times
from stockdesk.evaluation.application.verdict_table import SORTS, verdict_page
from stockdesk.evaluation.domain.dtos import (
    ALL_EXPERTS,
    EvaluationJob,
    EvaluationMode,
    EvaluationReport,
    ReportOverview,
    VerdictPage,
)
from stockdesk.evaluation.presentation.rest import EvaluationBody
from stockdesk.shared.errors import BadRequestException

CHART_IDS = ("equity", "reliability", "rank-ic", "hit-rate")  # every chart a report can draw
STATS = ("hit_rate", "rank_ic", "mean_excess_bought")  # the bootstrap's statistics
ACTIONS = ("BUY", "SELL", "HOLD")
MODES = tuple(mode.value for mode in EvaluationMode)
SET_NAMES = (*MODES, "rules_baseline", "always_hold", "buy_and_hold", "benchmark")  # named in i18n
EXPERTS = ALL_EXPERTS  # named in i18n (analyze.expert.<name>)
VERDICT_SORTS = SORTS  # named in i18n (evaluations.verdicts.col.<sort>)
DIRECTIONS = ("asc", "desc")
PAGE_SIZE = 50


@dataclass
class EvaluationForm:
    """What the start form holds (as typed), so a refused form comes back filled in."""

    symbols: str = ""
    start: str = ""
    end: str = ""
    every: str = "20"
    horizons: str = "5,20,60"
    mode: str = EvaluationMode.RULES.value
    benchmark: str = ""
    experts: list[str] = field(default_factory=list)
    slippage: str = ""

    def body(self) -> EvaluationBody:
        """The REST body of this form; a value it refuses is a 400 naming the field."""
        data: dict[str, Any] = {
            "symbols": split_list(self.symbols),
            "start": self.start.strip(),
            "end": self.end.strip(),
            "every": self.every.strip(),
            "horizons": split_list(self.horizons),
            "mode": self.mode,
            "benchmark": self.benchmark.strip().upper() or None,
        }
        if self.experts:
            data["experts"] = self.experts
        if self.slippage.strip():
            data["slippage"] = self.slippage.strip()
        try:
            return EvaluationBody.model_validate(data)
        except ValidationError as exc:
            raise refused(exc) from exc


@dataclass(frozen=True)
class JobView(CountedJob):
    """One evaluation as a list row or a progress panel; `live` is the executor's state, if any."""

    mode: str = ""
    symbols: str = ""
    window: str = ""
    every: int = 0
    horizons: str = ""
    benchmark: str = ""

    @property
    def finished(self) -> bool:
        """Every point computed (done or failed for good): the report can be scored."""
        return not self.live and self.pending == 0

    @property
    def resumable(self) -> bool:
        return self.work_left

    @property
    def panel(self) -> JobPanel:
        return self.panel_as("evaluation", resumable=self.resumable)


def job_view(job: EvaluationJob, live: str | None) -> JobView:
    config = job.config
    return JobView(
        id=job.job_id,
        state=live or job.status,
        live=live is not None,
        mode=str(config["mode"]),
        symbols=", ".join(config["symbols"]),
        window=f"{config['start']} – {config['end']}",
        every=int(config["every"]),
        horizons=", ".join(str(h) for h in config["horizons"]),
        benchmark=config.get("benchmark") or "",
        done=job.done,
        failed=job.failed,
        pending=job.pending,
        total=job.total,
        error=job.error,
        created=stamp(job.created_at),
    )


@dataclass(frozen=True)
class VerdictQuery:
    """Which page of the verdict list, sorted how, at which horizon (`?h=&sort=&dir=&page=`)."""

    horizon: str
    sort: str = "as_of"
    direction: str = "asc"
    page: int = 1

    @classmethod
    def parse(cls, horizons: list[str], h: str, sort: str, direction: str, page: str) -> VerdictQuery:
        """The query, or a 400 naming the bad value (its catalogue message in `details["message_key"]`)."""
        chosen = cls(h.strip() or horizons[0], sort.strip() or "as_of", direction.strip() or "asc")
        if chosen.horizon not in horizons:
            raise _bad("BAD_HORIZON", "evaluations.verdicts.bad_horizon", h, ", ".join(horizons))
        if chosen.sort not in SORTS:
            raise _bad("BAD_SORT", "evaluations.verdicts.bad_sort", sort, ", ".join(SORTS))
        if chosen.direction not in DIRECTIONS:
            raise _bad("BAD_SORT", "evaluations.verdicts.bad_direction", direction, ", ".join(DIRECTIONS))
        number = page.strip() or "1"
        if not number.isdigit() or int(number) < 1:
            raise _bad("BAD_PAGING", "evaluations.verdicts.bad_page", page, "1, 2, 3, …")
        return replace(chosen, page=int(number))

    def url(self, job_id: str, **changes: Any) -> str:
        """This evaluation's page with the list changed (`sort`, `direction`, `horizon`, `page`)."""
        q = replace(self, **changes)
        params = {"h": q.horizon, "sort": q.sort, "dir": q.direction, "page": str(q.page)}
        return f"/evaluations/{job_id}?{urlencode(params)}#verdicts"

    def toggled(self, job_id: str, sort: str) -> str:
        """The link of a column heading: sorted by it, the other way round if it is sorted by already."""
        flip = {"asc": "desc", "desc": "asc"}[self.direction] if sort == self.sort else "asc"
        return self.url(job_id, sort=sort, direction=flip, page=1)


def _bad(code: str, key: str, value: str, allowed: str) -> BadRequestException:
    value = value if len(value) <= 20 else value[:20] + "…"  # echoed: a long value is cut
    return BadRequestException(
        f"{key.rsplit('.', 1)[1].replace('_', ' ')} {value!r}: choose {allowed}",
        code=code,
        details={"message_key": key, "value": value, "allowed": allowed},
    )


def verdicts_view(overview: ReportOverview, query: VerdictQuery) -> dict[str, Any]:
    """One page of the verdicts, formatted, with its paging; a page past the last is a 400."""
    total = len(overview.verdicts.symbol)
    pages = max(1, -(-total // PAGE_SIZE))
    if query.page > pages:
        raise _bad("BAD_PAGING", "evaluations.verdicts.bad_page", str(query.page), f"1 … {pages}")
    found: VerdictPage = verdict_page(
        overview.verdicts, horizon=query.horizon, sort=query.sort, descending=query.direction == "desc",
        offset=(query.page - 1) * PAGE_SIZE, limit=PAGE_SIZE,
    )  # fmt: skip
    rows = [
        {
            "symbol": r.symbol, "as_of": r.as_of.isoformat(), "action": r.action, "session_id": r.session_id,
            "probability": pct(r.probability), "forward": pct(r.forward, 2), "excess": pct(r.excess, 2),
            "hit": r.hit,
        }
        for r in found.rows
    ]  # fmt: skip
    return {
        "rows": rows,
        "total": total,
        "first": found.offset + 1 if rows else 0,
        "last": found.offset + len(rows),
        "page": query.page,
        "pages": pages,
        "sessions": any(overview.verdicts.session_id),
        "columns": VERDICT_SORTS,
    }


def report_view(overview: ReportOverview, query: VerdictQuery) -> dict[str, Any]:
    """The finished report's charts (ChartSpec dicts, each with its words in both languages: the page's
    chart macro picks its own) and tables, formatted as the HTML report does, and one page of its
    verdicts."""
    report = overview.report
    mode = str(report.config["mode"])
    horizons = [str(h) for h in report.config["horizons"]]
    charts = report_charts(report)
    drawn = {c.id for c in charts}
    return {
        "summary": report.summary,
        "summaries": {lang: texts.get("summary") for lang, texts in report.i18n.items()},  # by language
        "charts": [c.model_dump(mode="json") for c in charts],
        "missing": [c for c in CHART_IDS if c not in drawn],
        "hit_rows": _hit_rows(report, horizons),
        "action_rows": _action_rows(report, horizons),
        "skill_rows": _skill_rows(report, horizons),
        "experts": [(h, _expert_rows(report, mode, h)) for h in horizons],
        "portfolio": _portfolio_rows(report),
        "window": _portfolio_window(report),
        "failed": report.failed,
        "points": len(overview.verdicts.symbol),
        "verdicts": verdicts_view(overview, query),
        "horizons": horizons,
        "every": int(report.config["every"]),
    }


def _portfolio_window(report: EvaluationReport) -> dict[str, Any] | None:
    """The days the portfolios cover; a report scored before the window was stored has its dates."""
    book = report.portfolio or {}
    window = book.get("window")
    if window:
        return {"start": window["start"], "end": window["end"], "complete": bool(window["complete"])}
    dates = book.get("dates") or []
    return {"start": dates[0], "end": dates[-1], "complete": None} if dates else None


def _hit_rows(report: EvaluationReport, horizons: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name, by_horizon in report.metrics.items():
        for h in horizons:
            m = by_horizon.get(h)
            if not m:
                continue
            rows.append(
                {
                    "set": name, "horizon": h, "count": m["count"], "hit_rate": pct(m["hit_rate"]),
                    "mean_excess": pct(m["mean_excess"], 2), "rank_ic": num(m["rank_ic"]["mean"]),
                    "ic_t": num(m["rank_ic"]["t"], 2), "brier": num(m["brier"]),
                    "brier_skill": num(m["brier_skill"]), "ece": num(m["ece"]),
                }
            )  # fmt: skip
    return rows


def _action_rows(report: EvaluationReport, horizons: list[str]) -> list[dict[str, Any]]:
    """What followed each action, per set and horizon: the figures the all-points row averages
    away (its mean excess is the same for every set: it is the mean over all points)."""
    rows = []
    for name, by_horizon in report.metrics.items():
        for h in horizons:
            actions = ((by_horizon.get(h) or {}).get("detail") or {}).get("actions") or {}
            for action in ACTIONS:
                a = actions.get(action)
                if a and a.get("count"):
                    rows.append(
                        {
                            "set": name, "horizon": h, "action": action, "count": a["count"],
                            "hit_rate": pct(a["hit_rate"]), "mean_excess": pct(a["mean_excess"], 2),
                            "median_excess": pct(a["median_excess"], 2),
                        }
                    )  # fmt: skip
    return rows


def _skill_rows(report: EvaluationReport, horizons: list[str]) -> list[dict[str, Any]]:
    """Each set's paired bootstrap against the rules baseline (the baseline itself has none); a
    difference of hit rates or of returns in percent, of rank ICs as a number."""
    rows = []
    for name, by_horizon in report.metrics.items():
        for h in horizons:
            for stat, b in (by_horizon.get(h) or {}).get("bootstrap", {}).items():
                shown = _difference(stat)
                rows.append(
                    {
                        "set": name, "horizon": h, "stat": stat if stat in STATS else "",
                        "raw_stat": stat, "observed": shown(b["observed"]),
                        "low": shown(b["low"]), "high": shown(b["high"]),
                        "distinguishable": bool(b["distinguishable"]),
                    }
                )  # fmt: skip
    return rows


def _difference(stat: str) -> Callable[[float | None], str]:
    """How a bootstrap difference reads: hit rates and returns are fractions (shown in %)."""
    if stat in ("hit_rate", "mean_excess_bought"):
        return lambda value: pct(value, 2)
    return lambda value: num(value, 4)


def _expert_rows(report: EvaluationReport, mode: str, horizon: str) -> list[dict[str, Any]]:
    rows = (report.metrics.get(mode, {}).get(horizon, {}) or {}).get("experts", [])
    return [
        {
            "expert": e["expert"], "count": e["count"], "directional": e["directional"],
            "hit_rate": pct(e["hit_rate"]), "ic_mean": num(e["ic_mean"]), "ic_t": num(e["ic_t"], 2),
            "helps": e["helps"],
        }
        for e in rows
    ]  # fmt: skip


def _portfolio_rows(report: EvaluationReport) -> list[dict[str, Any]]:
    return [
        {
            "set": name, "total_return": pct(m["total_return"]), "annual_return": pct(m["annual_return"]),
            "volatility": pct(m["volatility"]), "sharpe": num(m["sharpe"], 2),
            "max_drawdown": pct(m["max_drawdown"]), "turnover": times(m.get("turnover")),
        }
        for name, m in report.portfolio.get("metrics", {}).items()
    ]  # fmt: skip
