"""Scheduling wired to the other contexts: a run's batch is the batch analysis of the coordinator on
this process's engine (inline: a few symbols after the close), its calendar the store's bars, its
digest's figures the store's closes and the verdicts' plans, its deliveries notifications', its paper
step the paper book's. Built here, not in the container, because the batch's worker builds containers
itself (the container may not import it back at import time)."""

from __future__ import annotations

import uuid
import weakref
from datetime import date, timedelta
from typing import TYPE_CHECKING

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig, BatchRow
from stockdesk.coordinator.application.day_verdicts import SymbolVerdict, symbol_verdict
from stockdesk.coordinator.presentation.reports.batch_index import run_and_index
from stockdesk.data_engineering.application import market_of
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.notifications.application import DeliveryResult, Digest, DigestRow
from stockdesk.scheduling.application import KIND, References, RunPorts
from stockdesk.scheduling.container import SchedulingContainer
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.tasks import InlineEngine
from stockdesk.shared.tasks.kinds import JobKind

if TYPE_CHECKING:
    from stockdesk.entrypoints.container import AppContainer

CLOSE_LOOKBACK_DAYS = 10


class RunWiring:
    """The RunPorts' functions over one app container (a class, so each is named and documented)."""

    def __init__(self, app: AppContainer):
        self.app = app

    def market(self, symbols: list[str]) -> str:
        """The symbols' market (the first one's): the steps ask it one symbol at a time, so a watchlist
        mixing markets is synced and run per market."""
        return market_of(symbols[0]) if symbols else "CN"

    def sync(self, market: str, symbols: list[str], day: date) -> str:
        summary = self.app.data.sync_service.sync(
            market,
            symbols,
            day - timedelta(days=CLOSE_LOOKBACK_DAYS),
            day,
            f"schedule-{uuid.uuid4().hex[:12]}",
        )
        states = summary.symbol_status
        shown = ", ".join(f"{s} {states[s]}" for s in summary.symbols)
        return f"synced {len(summary.symbols)} symbols to {day.isoformat()}: {shown}"

    def batch(self, config: BatchAnalysisConfig) -> list[BatchRow]:
        service = self.app.batch_analysis
        job, _ = service.open(config)
        work = AnalyzeSymbolsWork(self.app.settings, config, distributed=False)
        run_and_index(service, config, job.id, work, InlineEngine())
        return service.rows(job.id)

    def digest_row(self, row: BatchRow, day: date, held: bool) -> DigestRow:
        bars = self.app.data.daily_bars.execute(
            row.symbol, as_of=day, start=day - timedelta(days=CLOSE_LOOKBACK_DAYS)
        )
        last = bars[-1] if bars and bars[-1].trade_date == day else None
        before = bars[-2] if last is not None and len(bars) > 1 else None
        change = None
        if last is not None and before is not None and before.close:
            change = round((last.close / before.close - 1) * 100, 2)
        security = self.app.data.stock_basic_info.execute(row.symbol)
        verdict = self._verdict(row.session_id, day)
        calibrated = verdict is not None and verdict.calibrated
        return DigestRow(
            symbol=row.symbol, name=(security.name if security and security.name else ""),
            action=str(row.action).upper(), close=last.close if last else None, change_pct=change,
            probability=verdict.probability_up if calibrated else None,  # type: ignore[union-attr]
            sample_size=verdict.sample_size if calibrated else None,  # type: ignore[union-attr]
            stop=verdict.stop if verdict else None, target=verdict.target if verdict else None,
        )  # fmt: skip

    def _verdict(self, session_id: str | None, day: date) -> SymbolVerdict | None:
        """The run's verdict of the symbol, typed (its calibrated P(up), sample size and plan levels)."""
        if not session_id:
            return None
        try:
            return symbol_verdict(self.app.coordinator.service.get(session_id), day)
        except StockdeskError:
            return None

    def held(self, day: date) -> set[str]:
        return {p.symbol for p in self.app.portfolio.holdings.positions(day)}

    def deliver(self, digest: Digest, channel: str) -> DeliveryResult:
        return self.app.notifications.service.deliver(digest, [channel])[0]

    def paper_step(self, book: str, day: date) -> str:
        stepped = self.app.paper.service.step(book, day)
        return f"paper book {book}: {len(stepped)} day(s) stepped to {day.isoformat()}"

    def ports(self) -> RunPorts:
        app = self.app
        return RunPorts(
            symbols=app.portfolio.watchlists.symbols,
            market=self.market,
            trading_day=app.data.trading_day.execute,
            sync=self.sync if app.settings.scheduler_sync else None,
            batch=self.batch,
            digest_row=self.digest_row,
            held=self.held,
            deliver=self.deliver,
            report_url=app.notifications.service.report_url,
            paper_step=self.paper_step,
            reports_root=app.settings.home / "reports",
        )


_built: weakref.WeakKeyDictionary[AppContainer, SchedulingContainer] = weakref.WeakKeyDictionary()


def scheduling_of(app: AppContainer) -> SchedulingContainer:
    """The app container's scheduling, built on first use (kept beside it, not in it: see the module)."""
    found = _built.get(app)
    if found is None:
        found = _built[app] = build_scheduling(app)
    return found


def build_scheduling(app: AppContainer) -> SchedulingContainer:
    wiring = RunWiring(app)
    return SchedulingContainer(
        app.database,
        SqlTaskStore(app.database),
        References(
            watchlist_symbols=lambda name: app.portfolio.watchlists.symbols(name),
            channel_health=lambda: app.notifications.service.channel_health(),
            paper_books=lambda: {b.name for b in app.paper.service.list() if not b.closed},
        ),
        wiring.ports,
        catch_up=timedelta(hours=app.settings.scheduler_catch_up_hours),
    )


def resume_on_the_server(app: AppContainer) -> None:
    """Let the server resume a scheduled run on its executor (the jobs page, POST /api/v1/jobs/{id}/
    resume): a run left claimed with its job opened (a full queue, a server that stopped) would
    otherwise wait for `stockdesk jobs resume`. The container lists the kind as resumed by the CLI,
    since it may not import this module; the server replaces that here."""

    def resume(job_id: str) -> None:
        scheduling_of(app).runs.start_on(app.jobs, job_id)

    app.job_kinds.replace(JobKind(KIND, resume=resume))
