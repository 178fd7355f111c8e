"""The steps of one scheduled run, each a task of its `scheduled_run` job (so a crash resumes at the
step it stopped in, and a finished step is never done again):

1-sync      only when providers are configured: the watchlist's data, through the data context;
2-calendar  is the day a trading day in the store (daily bars of each of the watchlist's markets)? If
            no market traded, the steps after it do nothing and the run is recorded as skipped: never
            run on stale data; in a list mixing markets, a market closed that day is left out (a note);
3-batch     the batch over the watchlist's open markets (its own batch job: a resume analyses only
            what is missing), its reports and index written to `<reports>/schedules/<name>/<day>/`;
4-digest    the table from the batch's rows and the changes since the last finished run;
5-deliver   the digest to each channel (notifications sends a digest to a channel once);
6-paper     only with a paper book: the book stepped to the day.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from stockdesk.coordinator.application import DebateModeName
from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig, BatchRow
from stockdesk.notifications.application import Digest, DigestRow, changes_between
from stockdesk.scheduling.application.ports import RunPorts
from stockdesk.scheduling.domain.model import Schedule
from stockdesk.scheduling.domain.ports import IScheduleStore
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.tasks import ITaskStore

SYNC, CALENDAR, BATCH, DIGEST, DELIVER, PAPER = (
    "1-sync",
    "2-calendar",
    "3-batch",
    "4-digest",
    "5-deliver",
    "6-paper",
)


def step_keys(schedule: Schedule, sync: bool) -> list[str]:
    keys = [CALENDAR, BATCH, DIGEST, DELIVER]
    return ([SYNC] if sync else []) + keys + ([PAPER] if schedule.paper else [])


def report_dir(root: Path, schedule: str, day: date) -> Path:
    return root / "schedules" / schedule / day.isoformat()


def by_market(ports: RunPorts, symbols: list[str]) -> dict[str, list[str]]:
    """The symbols by market, in the list's order: a list that mixes markets (A-shares and US names)
    is synced and run per market, each on its own trading days."""
    markets: dict[str, list[str]] = {}
    for symbol in symbols:
        markets.setdefault(ports.market([symbol]), []).append(symbol)
    return markets


def open_markets(ports: RunPorts, markets: Mapping[str, list[str]], day: date) -> dict[str, list[str]]:
    """The markets that traded on `day` (the store has their bars), with their symbols."""
    return {market: symbols for market, symbols in markets.items() if ports.trading_day(market, day)}


def no_bars_reason(day: date) -> str:
    return f"not a trading day in the store: no bars for {day.isoformat()}"


def batch_config(schedule: Schedule, symbols: list[str], day: date, out_dir: Path) -> BatchAnalysisConfig:
    """rules: code only, no LLM; experts: the experts and the bull/bear debate to a verdict; full: the
    panel debate."""
    return BatchAnalysisConfig(
        symbols=symbols,
        as_of=day,
        rules_only=schedule.mode == "rules",
        debate_mode=DebateModeName.PANEL if schedule.mode == "full" else DebateModeName.BULL_BEAR,
        out_dir=str(out_dir.resolve()),
    )


@dataclass
class RunSteps:
    """The worker of a `scheduled_run` job: each key is a step of `schedule`'s run on `day`."""

    ports: RunPorts
    runs: IScheduleStore
    tasks: ITaskStore
    job_id: str
    schedule: Schedule
    day: date

    def __call__(self, keys: list[str]) -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for key in keys:
            try:
                answer[key] = self._step(key)
            except StockdeskError as exc:
                answer[key] = exc
        return answer

    def _done(self) -> dict[str, Mapping[str, Any]]:
        return {t.key: t.result or {} for t in self.tasks.tasks(self.job_id)}

    def _symbols(self) -> list[str]:
        return self.ports.symbols(self.schedule.watchlist)

    def _step(self, key: str) -> dict[str, Any]:
        done = self._done()
        if key == SYNC:
            return self._sync()
        if key == CALENDAR:
            return self._calendar()
        if not done.get(CALENDAR, {}).get("trading"):
            return {"skipped": True}
        if key == BATCH:
            return self._batch(done)
        if key == DIGEST:
            return self._digest(done)
        if key == DELIVER:
            return self._deliver(done)
        return {"note": self.ports.paper_step(self.schedule.paper or "", self.day)}

    def _by_market(self) -> dict[str, list[str]]:
        return by_market(self.ports, self._symbols())

    def _sync(self) -> dict[str, Any]:
        if self.ports.sync is None:
            return {"note": "no data provider configured: not synced"}
        notes = []
        for market, symbols in self._by_market().items():
            try:
                notes.append(self.ports.sync(market, symbols, self.day))
            except StockdeskError as exc:  # the calendar step then decides on what the store has
                notes.append(f"sync failed: {exc.message}")
        return {"note": "; ".join(notes)}

    def _calendar(self) -> dict[str, Any]:
        """Which of the list's markets trade on the day (the store has their bars): their symbols run;
        a market closed that day (a holiday there) is left out with a note, never run on stale bars."""
        markets = self._by_market()
        open_ = open_markets(self.ports, markets, self.day)
        if not open_:
            return {"trading": False, "reason": no_bars_reason(self.day)}
        closed = [m for m in markets if m not in open_]
        note = (
            f"{', '.join(closed)} not run: no bars for {self.day.isoformat()} (not a trading day there)"
            if closed
            else ""
        )
        return {"trading": True, "symbols": [s for group in open_.values() for s in group], "note": note}

    def _batch(self, done: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        out = report_dir(self.ports.reports_root, self.schedule.name, self.day)
        out.mkdir(parents=True, exist_ok=True)
        # the calendar step's open markets; a run stored before per-market days has none: all symbols
        symbols = done.get(CALENDAR, {}).get("symbols") or self._symbols()
        rows = self.ports.batch(batch_config(self.schedule, symbols, self.day, out))
        return {"rows": [r.model_dump(mode="json") for r in rows], "report_dir": str(out.resolve())}

    def _digest(self, done: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        rows = [BatchRow.model_validate(r) for r in done[BATCH]["rows"]]
        held = self.ports.held(self.day)
        current = [self._row(r, r.symbol in held) for r in rows if r.action]
        last = self.runs.last_finished(self.schedule.name, self.day)
        previous = last.rows if last is not None else []
        path = f"schedules/{self.schedule.name}/{self.day.isoformat()}/index.html"
        digest = Digest(
            title=f"{self.schedule.name} · {self.schedule.watchlist}",
            as_of=self.day,
            run=f"{self.schedule.name}-{self.day.isoformat()}",
            language=self.schedule.language,
            changes=changes_between(previous, current, held),
            rows=current,
            report_url=self.ports.report_url(path),
        )
        return {"digest": digest.model_dump(mode="json")}

    def _row(self, row: BatchRow, held: bool) -> DigestRow:
        line = self.ports.digest_row(row, self.day, held)
        action = row.holder_action if held else None
        return line.model_copy(update={"action": action}) if action else line

    def _deliver(self, done: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        digest = Digest.model_validate(done[DIGEST]["digest"])
        results = []
        for channel in self.schedule.notify:
            try:
                result = self.ports.deliver(digest, channel)
                results.append(result.model_dump(mode="json"))
            except StockdeskError as exc:  # a channel removed from the settings since: recorded, not raised
                results.append({"channel": channel, "status": "failed", "attempts": 0, "error": exc.message})
        return {"deliveries": results}


def digest_rows(results: Mapping[str, Mapping[str, Any]]) -> list[DigestRow]:
    digest = results.get(DIGEST, {}).get("digest")
    return Digest.model_validate(digest).rows if digest else []
