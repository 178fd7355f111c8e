"""EvaluationService: replay the desk over past dates, durably, then score it.

1. Plan: each symbol's evaluation dates (every N trading days in the window).
2. Verdicts: one durable task per (symbol, date) in the job named by the config's hash; a rerun
   resumes the job and never recomputes a finished task; a failed task is retried up to
   MAX_ATTEMPTS and then reported. LLM modes run inside the response cache, so rerunning the same
   evaluation costs no LLM call. Batches run in this thread, or on an engine (Ray: `--workers N`)
   by a worker that calls `verdicts_for` in its own process: the same verdicts either way.
3. Scores (from the stored verdicts, in seconds): outcomes, metrics of the mode and of the baselines
   (rules, always-HOLD, buy-and-hold), portfolios, the summary, and the verdict table the page lists.
   `run` and a server job score when their last point is done and store the report with its basis
   (`ReportBasis`: the scoring version, the done and failed points, a fingerprint of the bars from
   the window's start to the last day it read); `report` and `overview` answer the stored one while
   its basis is unchanged (one grouped read of the bars), and score again otherwise. A change only to
   stored valuations, financials or bars before the window does not show in the basis (it moves the
   signal model's factor table at most): `stockdesk evaluate` run again always scores afresh.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from functools import partial
from typing import Any

import pandas as pd

from stockdesk.evaluation.application.batch_usage import usage_in, with_usage
from stockdesk.evaluation.application.lessons import LESSON_HORIZON, known_lessons
from stockdesk.evaluation.application.market import EvaluationMarket
from stockdesk.evaluation.application.mode_calibration import calibrate_mode
from stockdesk.evaluation.application.reflection import compare_reflection
from stockdesk.evaluation.application.schedule import evaluation_dates, parse_key, task_key
from stockdesk.evaluation.application.scoring import (
    ALWAYS_HOLD,
    BUY_AND_HOLD,
    RULES_BASELINE,
    attribution,
    benchmark_levels,
    month_regimes,
    outcomes,
    points_of,
    portfolio,
    score_set,
)
from stockdesk.evaluation.application.summary_text import summaries, summary_text
from stockdesk.evaluation.application.verdict_table import verdict_table
from stockdesk.evaluation.domain.dtos import (
    EvaluationConfig,
    EvaluationJob,
    EvaluationMode,
    EvaluationReport,
    ExpertVoice,
    FailedTask,
    ReportBasis,
    ReportOverview,
    Verdict,
    VerdictTable,
)
from stockdesk.evaluation.domain.ports import (
    IEvaluationReportStore,
    ILLMUsage,
    IVerdictSource,
    LessonLookup,
    NoLLM,
    ReportPart,
    SecurityInfo,
    Usage,
)
from stockdesk.research.application.signal_model.run import MODEL_VERSION
from stockdesk.shared.errors import BadRequestException, ConflictException, NotFoundException
from stockdesk.shared.tasks import (
    BatchWorker,
    ITaskEngine,
    ITaskStore,
    JobRecord,
    RunBudget,
    TaskStatus,
    run_tasks,
)

JOB_KIND = "evaluate"
FRAME_COLUMNS = [
    "symbol", "as_of", "action", "confidence", "position_percent", "session_id", "experts",
    "probability_up", "calibration", "contributions", "evidence",
]  # fmt: skip
SCHEMA_VERSION = 2  # bump when a stored verdict's meaning changes: old jobs then do not resume
SCORING_VERSION = 2  # bump when a report of the same verdicts changes (2: summaries in both languages)
MAX_ATTEMPTS = 3
Progress = Callable[[int, int], None]
WorkerFactory = Callable[[EvaluationConfig], BatchWorker]
Panel = tuple[dict[str, SecurityInfo], pd.DataFrame, pd.DataFrame]  # securities, universe bars, levels


class EvaluationService:
    def __init__(
        self,
        market: EvaluationMarket,
        sources: Mapping[EvaluationMode, Callable[[], IVerdictSource]],
        tasks: ITaskStore,
        llm: Callable[[], ILLMUsage],
        reports: IEvaluationReportStore,
    ):
        """`sources[mode]()` builds that mode's verdict source (only when the mode runs)."""
        self._market = market
        self._sources = sources
        self._tasks = tasks
        self._llm = llm
        self._reports = reports
        self._usage: dict[str, Usage] = {}  # what the last execute of each job spent (this process)

    def plan(self, config: EvaluationConfig) -> dict[str, list[date]]:
        known = self._market.securities(config.symbols)
        unknown = [s for s in config.symbols if s not in known]
        if unknown:
            raise NotFoundException(
                f"not in the store: {', '.join(unknown)} (import or sync them first)", code="UNKNOWN_SYMBOL"
            )
        if config.benchmark and not self._market.securities([config.benchmark]):
            raise NotFoundException(
                f"benchmark {config.benchmark} is not in the store", code="UNKNOWN_SYMBOL"
            )
        dates = evaluation_dates(
            self._market.bars(config.symbols, config.start, config.end),
            config.start,
            config.end,
            config.every,
        )
        if not any(dates.values()):
            raise BadRequestException(
                f"no trading day of {', '.join(config.symbols)} between {config.start} and {config.end}",
                code="EMPTY_WINDOW",
            )
        return dates

    def start(self, config: EvaluationConfig) -> EvaluationJob:
        """Check the config, plan the points and open (or reopen) the durable job: no verdict yet."""
        plan = self.plan(config)
        stored = {"schema": SCHEMA_VERSION, "model": MODEL_VERSION, **config.stored()}
        keys = [task_key(s, d) for s, days in plan.items() for d in days]
        job, _ = self._tasks.open_with_tasks(JOB_KIND, stored, keys)
        return self.status(job.id)

    def status(self, job_id: str) -> EvaluationJob:
        job = self._tasks.get_job(job_id)
        if job is None or job.kind != JOB_KIND:
            raise NotFoundException(
                f"no evaluation {job_id}", code="EVALUATION_NOT_FOUND", details={"id": job_id}
            )
        return self._job(job)

    def list(self, limit: int = 20) -> list[EvaluationJob]:
        """The newest evaluations first, with their progress (the web UI's and REST's list)."""
        return [self._job(job) for job in self._tasks.list_jobs(JOB_KIND, limit)]

    def _job(self, job: JobRecord) -> EvaluationJob:
        counts = self._tasks.counts(job.id)
        return EvaluationJob(
            job_id=job.id, status=job.status.value, config=_config(job.config), done=counts.done,
            failed=counts.failed, pending=counts.pending + counts.running, total=counts.total,
            error=job.error, created_at=job.created_at,
        )  # fmt: skip

    def execute(
        self,
        job_id: str,
        *,
        on_progress: Progress | None = None,
        engine: ITaskEngine | None = None,
        worker: WorkerFactory | None = None,
        budget: RunBudget | None = None,
    ) -> EvaluationJob:
        """Compute every verdict the job still lacks (retrying failures), in the response cache.

        `budget`: no new batch starts once the finished batches spent it (the job ends `stopped`).

        No `engine`: batch after batch in this thread, metered here (today's way). With an engine
        (threads, Ray): up to `engine.workers` batches at once, each by `worker(config)` (a
        picklable worker for Ray; default: this service in this process); the run's LLM usage is
        then summed from the results it finished (`batch_usage`), wherever they were computed.
        """
        job = self.status(job_id)
        config = EvaluationConfig.model_validate(job.config)
        if config.reflection:  # its lessons come from the run without them: that run finishes first
            base = self.start(config.without_reflection())
            if base.pending:
                self.execute(
                    base.job_id, on_progress=on_progress, engine=engine, worker=worker, budget=budget
                )
        if on_progress is not None:
            on_progress(job.done, job.total)
        source = self._prepared(config)

        def here(keys: list[str]) -> dict[str, Any]:
            return self._verdicts(source, config, keys)

        run = partial(
            run_tasks, self._tasks, job_id, batch_size=source.batch_size, max_attempts=MAX_ATTEMPTS,
            on_progress=on_progress, budget=budget,
        )  # fmt: skip
        if engine is None:
            llm = NoLLM() if config.mode is EvaluationMode.RULES else self._llm()
            with llm.cached_and_metered() as usage:
                run(here)
        else:
            before = {t.key for t in self._tasks.tasks(job_id, TaskStatus.DONE)}
            run(worker(config) if worker is not None else here, engine=engine)
            usage = usage_in(
                t.result for t in self._tasks.tasks(job_id, TaskStatus.DONE) if t.key not in before
            )
        self._usage[job_id] = usage
        return self.status(job_id)

    def verdicts_for(self, config: EvaluationConfig, keys: list[str]) -> dict[str, Any]:
        """One batch of task keys -> {key: verdict dict | Exception}: what a worker process runs.

        In the response cache; the batch's LLM usage rides on its first verdict (`batch_usage`).
        """
        return self._verdicts(self._prepared(config), config, keys)

    def _prepared(self, config: EvaluationConfig) -> IVerdictSource:
        """The mode's source, prepared; a reflection run's with each point's lessons."""
        source = self._sources[config.mode]()
        source.prepare(config)
        if config.reflection:
            source.use_lessons(self._lesson_lookup(config, self._finished_baseline(config)))
        return source

    def _finished_baseline(self, config: EvaluationConfig) -> EvaluationJob:
        """The run without reflection on the same points: it must be finished (its points are the
        memory the lessons come from, and the arm the reflection run is compared with)."""
        base = self.start(config.without_reflection())
        if base.pending:
            raise ConflictException(
                f"the run without reflection (evaluation {base.job_id}) has {base.pending} of "
                f"{base.total} points still to compute: run it first",
                code="EVALUATION_NOT_FINISHED",
            )
        return base

    def _lesson_lookup(self, config: EvaluationConfig, base: EvaluationJob) -> LessonLookup:
        """(symbol, day) -> the lessons of the baseline run's (`base`, finished) earlier points on
        that symbol whose 20-day outcome was known by the day (bars and levels are cut at the day:
        lessons.py)."""
        done = {
            parse_key(t.key): Verdict.model_validate(t.result)
            for t in self._tasks.tasks(base.job_id, TaskStatus.DONE)
        }
        past = pd.DataFrame(
            [
                {
                    "symbol": s,
                    "as_of": d,
                    "action": v.action,
                    "probability_up": v.probability_up.get(str(LESSON_HORIZON)),
                }
                for (s, d), v in sorted(done.items())
            ],
            columns=["symbol", "as_of", "action", "probability_up"],
        )
        securities, universe_bars, levels = self._market_panel(config)
        return partial(known_lessons, past, universe_bars, securities, levels)

    def _verdicts(self, source: IVerdictSource, config: EvaluationConfig, keys: list[str]) -> dict[str, Any]:
        points: dict[str, list[date]] = defaultdict(list)
        for key in keys:
            symbol, day = parse_key(key)
            points[symbol].append(day)
        llm = NoLLM() if config.mode is EvaluationMode.RULES else self._llm()
        with llm.cached_and_metered() as usage:
            found = source.verdicts(points, config.experts)
        results = {
            task_key(s, d): (v.model_dump(mode="json") if isinstance(v, Verdict) else v)
            for (s, d), v in found.items()
        }
        return with_usage(results, usage)

    def run(
        self,
        config: EvaluationConfig,
        *,
        on_progress: Progress | None = None,
        engine: ITaskEngine | None = None,
        worker: WorkerFactory | None = None,
    ) -> EvaluationReport:
        """start + execute + report: what `stockdesk evaluate` does."""
        job = self.start(config)  # reflection: `execute` finishes the run without lessons first
        self.execute(job.job_id, on_progress=on_progress, engine=engine, worker=worker)
        return self.report(job.job_id, resumed=job.done, fresh=True)

    def finish(self, job_id: str) -> EvaluationJob:
        """`execute`, then, when no point is left, score and store the report (what a server job
        runs: the evaluation's page then reads the stored report)."""
        job = self.execute(job_id)
        if not job.pending:
            self.score(job_id)
        return job

    def report(self, job_id: str, *, resumed: int = 0, fresh: bool = False) -> EvaluationReport:
        """The scored report: the stored one while its basis holds, else (or `fresh`) scored now
        (seconds; no LLM) and stored. Refused while tasks are still to do."""
        job = self._finished(job_id)
        text = None if fresh else self._stored(job, "report")
        report = EvaluationReport.model_validate_json(text) if text else self.score(job_id)[0]
        return self._with_usage(report, job_id, resumed=resumed)

    def overview(self, job_id: str) -> ReportOverview:
        """What the evaluation page shows (the report without its points, the verdict table): the
        stored one while its basis holds, else scored now and stored."""
        job = self._finished(job_id)
        text = self._stored(job, "overview")
        return ReportOverview.model_validate_json(text) if text else self.score(job_id)[1]

    def score(self, job_id: str) -> tuple[EvaluationReport, ReportOverview]:
        """Score the stored verdicts now and store the report with its basis."""
        job = self._finished(job_id)
        config = EvaluationConfig.model_validate(job.config)
        report, verdicts, through = self._score(config, job_id)
        overview = ReportOverview(
            report=report.model_copy(update={"points": []}), verdicts=verdicts, scored_at=datetime.now(UTC)
        )
        basis = self._basis(job, config, through)
        self._reports.save(job_id, basis, overview.model_dump_json(), report.model_dump_json())
        return report, overview

    def _finished(self, job_id: str) -> EvaluationJob:
        job = self.status(job_id)
        if job.pending:
            raise ConflictException(
                f"evaluation {job_id} has {job.pending} of {job.total} points still to compute",
                code="EVALUATION_NOT_FINISHED",
            )
        return job

    def _stored(self, job: EvaluationJob, part: ReportPart) -> str | None:
        """The stored part when the report was scored from what the job and the store hold now."""
        stored = self._reports.basis(job.job_id)
        if stored is None:
            return None
        config = EvaluationConfig.model_validate(job.config)
        if stored != self._basis(job, config, stored.bars_through):
            return None
        return self._reports.read(job.job_id, part)

    def _basis(self, job: EvaluationJob, config: EvaluationConfig, through: date | None) -> ReportBasis:
        symbols = [*config.symbols, *([config.benchmark] if config.benchmark else [])]
        return ReportBasis(
            version=SCORING_VERSION, done=job.done, failed=job.failed, bars_through=through,
            bars=self._market.bars_fingerprint(symbols, config.start, through),
        )  # fmt: skip

    def _with_usage(self, report: EvaluationReport, job_id: str, *, resumed: int) -> EvaluationReport:
        """The report with what this process's last run of the job spent (none: zeros)."""
        usage = self._usage.get(job_id, Usage())
        return report.model_copy(
            update={"llm_calls": usage.calls, "tokens": usage.tokens, "cache_hits": usage.cache_hits,
                    "resumed": resumed}
        )  # fmt: skip

    # ---- scoring ---------------------------------------------------------------------------------
    def _market_panel(
        self, config: EvaluationConfig
    ) -> tuple[dict[str, SecurityInfo], pd.DataFrame, pd.DataFrame]:
        """Securities, the universe's bars from the start on, and the benchmark's levels."""
        securities = self._market.securities(
            [*config.symbols, *([config.benchmark] if config.benchmark else [])]
        )
        bars = self._market.bars(list(securities), config.start, None)
        levels = benchmark_levels(bars, config.symbols, config.benchmark)
        return securities, bars[bars["symbol"].isin(config.symbols)], levels

    def _attach_model_report(self, config: EvaluationConfig, metrics: dict[str, Any]) -> None:
        """The signal model's factor table per horizon, on the set it scored (rules, or the rules
        baseline of an LLM mode): metrics[set][h]["model"]."""
        name = config.mode.value if config.mode is EvaluationMode.RULES else RULES_BASELINE
        if name not in metrics:
            return
        source = self._sources[EvaluationMode.RULES]()
        source.prepare(config)
        for h, learned in source.model_report().items():
            if h in metrics[name]:
                metrics[name][h]["model"] = learned

    def _scored_sets(
        self, config: EvaluationConfig, job_id: str
    ) -> tuple[dict[str, pd.DataFrame], dict[str, Any], Panel]:
        """The job's points and the baselines' on the same points, outcomes joined; an LLM mode's
        calibrated walk-forward beside the signal model (with its learned weights: `voices`)."""
        done = {parse_key(t.key): t.result for t in self._tasks.tasks(job_id, TaskStatus.DONE)}
        securities, universe_bars, levels = self._market_panel(config)
        sets = {config.mode.value: _stored_frame(done)}
        if config.mode is not EvaluationMode.RULES:
            rules_source = self._sources[EvaluationMode.RULES]()
            rules_source.prepare(config)
            rules = rules_source.verdicts(_by_symbol(done), config.experts)
            sets[RULES_BASELINE] = _frame({k: v for k, v in rules.items() if isinstance(v, Verdict)})
        sets[ALWAYS_HOLD] = _baseline(sets[config.mode.value], "HOLD", 0.0)
        sets[BUY_AND_HOLD] = _baseline(sets[config.mode.value], "BUY", 1.0 / len(config.symbols))
        # one pass over the bars for every set: they share the points, only the actions differ
        filled = {name: frame for name, frame in sets.items() if not frame.empty}
        joined = (
            outcomes(pd.concat(filled), universe_bars, securities, levels, config.horizons)
            if filled
            else None
        )
        scored = {name: joined.loc[name] if name in filled else frame for name, frame in sets.items()}
        mode = config.mode.value
        voices: dict[str, Any] = {}
        if config.mode is not EvaluationMode.RULES and not scored[mode].empty:
            # the LLM's voices weighed beside the signal model by the same walk-forward fit
            baseline = scored.get(RULES_BASELINE)
            if baseline is None or baseline.empty:
                baseline = _baseline(scored[mode], "HOLD", 0.0)
            scored[mode], voices = calibrate_mode(scored[mode], baseline, universe_bars, config)
            for name in (ALWAYS_HOLD, BUY_AND_HOLD):
                scored[name] = scored[name].assign(calibration=scored[mode]["calibration"].to_numpy())
        return scored, voices, (securities, universe_bars, levels)

    def _score(
        self, config: EvaluationConfig, job_id: str
    ) -> tuple[EvaluationReport, VerdictTable, date | None]:
        """The report, its verdict table, and the last bar day it read (None: it wanted more days
        than the store has, so any bar stored later may change it)."""
        failed = [
            FailedTask(
                symbol=parse_key(t.key)[0],
                as_of=parse_key(t.key)[1],
                attempts=t.attempts,
                error=t.error or "",
            )
            for t in self._tasks.tasks(job_id, TaskStatus.FAILED)
        ]
        scored, voices, (securities, universe_bars, levels) = self._scored_sets(config, job_id)
        mode = config.mode.value
        regimes = month_regimes(levels)
        base_name = config.mode.value if config.mode is EvaluationMode.RULES else RULES_BASELINE
        metrics: dict[str, Any] = {}
        for name, frame in scored.items():
            if frame.empty:
                continue
            baseline = None if name == base_name else scored.get(base_name)
            usable = baseline if baseline is not None and not baseline.empty else None
            metrics[name] = score_set(frame, usable, config, regimes)
        self._attach_model_report(config, metrics)
        for h, learned in voices.items():
            if h in metrics.get(mode, {}):
                metrics[mode][h]["model"] = learned
        main = scored[config.mode.value]
        if not main.empty:
            for h, rows in attribution(main, config.horizons).items():
                metrics[config.mode.value][h]["experts"] = rows
        non_empty = {n: f for n, f in scored.items() if not f.empty}
        book = portfolio(non_empty, universe_bars, securities, levels, config) if non_empty else {}
        report = EvaluationReport(
            config=config.model_dump(mode="json"),
            job_id=job_id,
            points=points_of(main, config) if not main.empty else [],
            failed=failed,
            llm_calls=0,
            tokens=0,
            metrics=metrics,
            portfolio=book,
            summary="",
            reflection=self._reflection(config, main) if config.reflection and not main.empty else None,
        )
        report = report.model_copy(
            update={"summary": summary_text(report, config), "i18n": summaries(report, config)}
        )
        table = verdict_table(main, config) if not main.empty else VerdictTable()
        return report, table, _bars_through(main, book, config)

    def _reflection(self, config: EvaluationConfig, with_lessons: pd.DataFrame) -> dict[str, Any]:
        """With lessons vs without, on the same points (the baseline run's scored points)."""
        base = self._finished_baseline(config)
        scored, _, _ = self._scored_sets(config.without_reflection(), base.job_id)
        lookup = self._lesson_lookup(config, base)  # the same baseline job, opened once
        given = sum(
            1 for s, d in zip(with_lessons["symbol"], with_lessons["as_of"], strict=True) if lookup(s, d)
        )
        return compare_reflection(with_lessons, scored[config.mode.value], config, given)


def _bars_through(main: pd.DataFrame, book: Mapping[str, Any], config: EvaluationConfig) -> date | None:
    """The last bar day the scores of `main` and the portfolio read; None when some point's entry or
    horizon, or the portfolio's window, ran past the stored bars (or nothing was scored)."""
    window = book.get("window") or {}
    if main.empty or not window.get("complete"):
        return None
    exits = pd.concat([pd.to_datetime(main[f"exit_{h}"]) for h in config.horizons])
    if exits.isna().any() or pd.to_datetime(main["entry_date"]).isna().any():
        return None
    return max(exits.max().date(), date.fromisoformat(window["end"]))


def _config(stored: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in stored.items() if k not in ("schema", "model")}


def _by_symbol(done: Mapping[tuple[str, date], Any]) -> dict[str, list[date]]:
    points: dict[str, list[date]] = defaultdict(list)
    for symbol, day in sorted(done):
        points[symbol].append(day)
    return points


def _frame(verdicts: Mapping[tuple[str, date], Verdict]) -> pd.DataFrame:
    rows = [
        {
            "symbol": symbol,
            "as_of": day,
            "action": v.action,
            "confidence": v.confidence,
            "position_percent": v.position_percent,
            "session_id": v.session_id,
            "experts": v.experts,
            "probability_up": v.probability_up,
            "calibration": {h: c.model_dump(mode="json") for h, c in v.calibration.items()},
            "contributions": v.contributions,
            "evidence": v.evidence,
        }
        for (symbol, day), v in sorted(verdicts.items())
    ]
    return pd.DataFrame(rows, columns=FRAME_COLUMNS)


def _stored_frame(results: Mapping[tuple[str, date], Mapping[str, Any]]) -> pd.DataFrame:
    """`_frame` of the verdicts as the tasks store them (`Verdict.model_dump(mode="json")`, each
    validated when it was stored), read without building a Verdict per point: a weekly 300-symbol
    evaluation scores 47,000 of them. Keys an older stored verdict lacks take Verdict's defaults."""
    rows = [
        {
            "symbol": symbol,
            "as_of": day,
            "action": v["action"],
            "confidence": float(v["confidence"]),
            "position_percent": float(v.get("position_percent", 0.0)),
            "session_id": v.get("session_id"),
            "experts": {n: ExpertVoice.model_construct(**e) for n, e in (v.get("experts") or {}).items()},
            "probability_up": v.get("probability_up") or {},
            "calibration": v.get("calibration") or {},
            "contributions": v.get("contributions") or {},
            "evidence": v.get("evidence", "sufficient"),
        }
        for (symbol, day), v in sorted(results.items())
    ]
    return pd.DataFrame(rows, columns=FRAME_COLUMNS)


def _baseline(frame: pd.DataFrame, action: str, position: float) -> pd.DataFrame:
    """A fixed baseline on the same points: confidence 0.5 (no view on the odds), no experts."""
    out = frame[["symbol", "as_of"]].copy()
    out["action"], out["confidence"], out["position_percent"] = action, 0.5, position
    out["session_id"], out["experts"] = None, [{} for _ in range(len(out))]
    out["probability_up"], out["contributions"] = [{} for _ in range(len(out))], [{} for _ in range(len(out))]
    out["calibration"] = frame["calibration"].to_numpy()  # the same walk-forward base rate to beat
    return out
