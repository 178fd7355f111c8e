"""Application container: builds each context once, lazily, from the effective settings."""

from __future__ import annotations

from datetime import date
from functools import cached_property
from pathlib import Path

from stockdesk.briefing.container import BriefingContainer
from stockdesk.briefing.presentation.jobs import KIND as BRIEFING_KIND
from stockdesk.briefing.presentation.jobs import configured, resume_briefing
from stockdesk.coordinator.application import AnalysisRuns, RulesDayVerdicts
from stockdesk.coordinator.application.analysis_runs import KIND as ANALYSIS_KIND
from stockdesk.coordinator.application.batch_analysis import JOB_KIND as BATCH_KIND
from stockdesk.coordinator.application.batch_analysis import BatchAnalysisService
from stockdesk.coordinator.container import CoordinatorContainer
from stockdesk.data_engineering.application.sync_runs import KIND as SYNC_KIND
from stockdesk.data_engineering.application.sync_runs import SyncRuns
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.debate.application.panel_tools import PanelData
from stockdesk.debate.container import DebateContainer
from stockdesk.debate.infrastructure.panel_factory import PanelOptions
from stockdesk.evaluation.application.evaluation_service import JOB_KIND as EVALUATION_STORED
from stockdesk.evaluation.container import EvaluationContainer
from stockdesk.evaluation.presentation.jobs import KIND as EVALUATION_KIND
from stockdesk.evaluation.presentation.jobs import resume_evaluation
from stockdesk.judge.container import JudgeContainer
from stockdesk.ledger.container import LedgerContainer
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.notifications.container import NotificationsContainer
from stockdesk.paper.container import PaperContainer
from stockdesk.portfolio.application import NameVerdict
from stockdesk.portfolio.container import PortfolioContainer
from stockdesk.portfolio.presentation.view_jobs import KIND as PORTFOLIO_VIEW_KIND
from stockdesk.portfolio.presentation.view_jobs import resume_view
from stockdesk.research.container import ResearchContainer
from stockdesk.scheduling.application import KIND as SCHEDULED_KIND
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.config import Settings, get_settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.access_counter_store import SqlAccessCounters
from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.db.ui_session_store import SqlUiSessionStore
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.kinds import JobKind, JobKinds
from stockdesk.strategy_lab.application.sweep_service import JOB_KIND as SWEEP_KIND
from stockdesk.strategy_lab.container import StrategyLabContainer
from stockdesk.strategy_lab.presentation.jobs import KIND as STRATEGY_KIND
from stockdesk.strategy_lab.presentation.jobs import recent_runs, resume_strategy_run, run_record
from stockdesk.web_search.application.search_service import WebSearchService
from stockdesk.web_search.container import build_search_service

RESUMED_BY_CLI = "stockdesk jobs resume {id}"  # batch analyses, sweeps, scheduled runs: in the foreground


class AppContainer:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        llm_service: LLMService | None = None,
        distributed: bool = False,
    ):
        """`distributed`: this container lives in a Ray worker (node's model, cluster-wide limits)."""
        self.settings = settings or get_settings()
        self.distributed = distributed
        if llm_service is not None:
            self.__dict__["llm_service"] = llm_service
        self.model_progress = None

    @cached_property
    def database(self) -> Database:
        return Database(
            self.settings.effective_database_url,
            busy_timeout_seconds=self.settings.sqlite_busy_timeout_seconds,
        )

    @cached_property
    def notifications(self) -> NotificationsContainer:
        return NotificationsContainer(self.settings, self.database)

    @cached_property
    def data(self) -> DataEngineeringContainer:
        return DataEngineeringContainer(self.settings, self.database)

    @cached_property
    def research(self) -> ResearchContainer:
        data = self.data
        return ResearchContainer(
            basic_info=data.stock_basic_info,
            valuations=data.valuations,
            finance=data.finance,
            bars=data.daily_bars,
            llm_service=lambda: self.llm_service,
            search=lambda: self.search_service,
            securities=data.securities,
            market_frames=data.market_frames,
            output_style=lambda: self.llm_service.output_style(),
            expert_notes=self.settings.llm_expert_notes,
        )

    @cached_property
    def debate(self) -> DebateContainer:
        data = self.data
        return DebateContainer(
            lambda: self.llm_service,
            panel_data=lambda: PanelData(
                news=data.news,
                bars=data.daily_bars,
                filings=data.filings,
                filing_pages=data.filing_pages,
                securities=data.stock_basic_info,
                intraday=data.intraday_bars,
            ),
            cache_dir=self.settings.cache_dir,
            panel_options=PanelOptions(
                min_rounds=self.settings.panel_min_rounds,
                max_rounds=self.settings.panel_max_rounds,
                consensus_threshold=self.settings.panel_consensus_confidence,
                max_tool_calls=self.settings.panel_max_tool_calls,
                tool_token_budget=self.settings.panel_tool_token_budget,
            ),
            output_style=lambda: self.llm_service.output_style(),
        )

    @cached_property
    def briefing(self) -> BriefingContainer:
        return BriefingContainer(
            lambda: self.llm_service,
            panel=lambda: self.debate.panel,
            tools=lambda: self.debate.panel_tools,
            panel_with_rounds=lambda rounds: self.debate.panel_with(max_rounds=rounds),
            tasks=lambda: SqlTaskStore(self.database),
        )

    @cached_property
    def judge(self) -> JudgeContainer:
        return JudgeContainer(lambda: self.llm_service, lambda: self.llm_service.output_style())

    @cached_property
    def coordinator(self) -> CoordinatorContainer:
        research = self.research
        return CoordinatorContainer(
            database=self.database,
            experts={
                "valuation_modeler": lambda: research.valuation_modeler.run,
                "technical_analyst": lambda: research.technical_analyst.run,
                "financial_auditor": lambda: research.financial_auditor.run,
                "macro_intelligence": lambda: research.macro_intelligence.run,
                "catalyst_detective": lambda: research.catalyst_detective.run,
            },
            snapshots={
                "valuation_modeler": lambda: research.valuation_modeler.build_snapshot,
                "technical_analyst": lambda: research.technical_analyst.build_snapshot,
                "financial_auditor": lambda: research.financial_auditor.build_snapshot,
                "macro_intelligence": lambda: research.macro_intelligence.build_snapshot,
                "catalyst_detective": lambda: research.catalyst_detective.build_snapshot,
            },
            charts=lambda: research.chart_data.build,
            model=lambda: research.signal_model.view,
            securities=self.data.stock_basic_info,
            as_of_check=self.data.as_of_check,
            debate=lambda: self.debate.service,
            judge=lambda: self.judge.service,
            llm_service=lambda: self.llm_service,
            ledger=lambda: self.ledger.service,
            # the ledger's matured verdicts, as track scores them (the track built on the first call)
            lessons=lambda symbol, as_of: self.evaluation.track.lessons(symbol, as_of),
            # the user's holdings, valued as of the analysis date: a held symbol gets a holder's plan
            holdings=lambda: self.portfolio.holdings,
        )

    @cached_property
    def ledger(self) -> LedgerContainer:
        """The verdict ledger: every verdict a session saves, in a hash chain."""
        return LedgerContainer(self.database)

    @cached_property
    def portfolio(self) -> PortfolioContainer:
        """Watchlists and holdings (positions with cost basis, valued as of a date)."""
        data = self.data
        return PortfolioContainer(
            self.database, data.securities, data.daily_bars, data.market_frames, self._portfolio_verdicts
        )

    def _portfolio_verdicts(self, symbols: list[str], day: date) -> list[NameVerdict]:
        """The coordinator's rules verdicts of a day, as the portfolio view reads them."""
        source = RulesDayVerdicts(lambda: self.coordinator.service)
        return [NameVerdict.model_validate(v.model_dump()) for v in source.verdicts(symbols, day)]

    @cached_property
    def strategy_lab(self) -> StrategyLabContainer:
        data = self.data
        return StrategyLabContainer(
            self.settings,
            self.database,
            securities=data.securities,
            frames=data.market_frames,
            finance=data.finance,
            llm_service=lambda: self.llm_service,
        )

    @cached_property
    def evaluation(self) -> EvaluationContainer:
        data = self.data
        return EvaluationContainer(
            database=self.database,
            securities=data.securities,
            market_frames=data.market_frames,
            rules_signals=lambda: self.research.rules_signals,
            judge=lambda: self.judge.service,
            coordinator=lambda: self.coordinator.service,
            llm_service=lambda: self.llm_service,
            slots=self.settings.local_parallel_slots,
            ledger=lambda: self.ledger.service,
        )

    @cached_property
    def paper(self) -> PaperContainer:
        """Paper books: the coordinator's rules verdicts filled by the execution module."""
        data = self.data
        return PaperContainer(
            database=self.database,
            securities=data.securities,
            market_frames=data.market_frames,
            coordinator=lambda: self.coordinator.service,
            ledger=lambda: self.ledger.service,
            watchlist_symbols=lambda name: self.portfolio.watchlists.symbols(name),
        )

    @cached_property
    def api_keys(self) -> SqlApiKeyStore:
        return SqlApiKeyStore(self.database)

    @cached_property
    def ui_sessions(self) -> SqlUiSessionStore:
        """The web UI's sign-in sessions (what its cookie names; never the key)."""
        return SqlUiSessionStore(self.database)

    @cached_property
    def access_counters(self) -> SqlAccessCounters:
        """The per-key limits every server process on this database shares (one per process)."""
        return SqlAccessCounters(self.database)

    @cached_property
    def jobs(self) -> JobExecutor:
        """The server's one runner of long work (evaluations, briefings, strategy runs)."""
        return JobExecutor(
            self.settings.jobs_max_running,
            self.settings.jobs_max_queued,
            per_kind=self.settings.jobs_max_running_per_kind,
        )

    @cached_property
    def sync_runs(self) -> SyncRuns:
        """`data sync` runs started as jobs (web UI, REST), followed by their run id."""
        return SyncRuns(self.data.sync_service, SqlTaskStore(self.database), lambda: self.jobs)

    @cached_property
    def batch_analysis(self) -> BatchAnalysisService:
        """`batch analyze` jobs: one task per symbol in the shared task store."""
        return BatchAnalysisService(
            SqlTaskStore(self.database),
            lambda: {s.symbol for s in self.data.securities.execute()},
            self.data.as_of_check.execute,
        )

    @cached_property
    def bounds(self) -> RequestBounds:
        """How much work one request to the server may ask for (REST, web UI, a resumed job)."""
        return RequestBounds(
            max_symbols=self.settings.max_universe_symbols,
            max_window_days=self.settings.max_window_days,
            max_iterations=self.settings.strategy_max_iterations,
            stored_symbols=lambda: len(self.data.securities.execute()),
        )

    @property
    def briefing_audio(self) -> Path:
        """Where the server keeps briefings' audio (and the marks that it was asked for)."""
        return self.settings.home / "briefings"

    @cached_property
    def job_kinds(self) -> JobKinds:
        """How each kind of job stops and resumes in the server: analyses and syncs stop through
        their own services (they mark their live state), every other kind through the executor;
        evaluations, briefings, portfolio views and strategy runs resume on the executor (strategy
        runs are found in the strategy lab's records, the others in the task store), and scheduled
        runs too once the server registers their resume (`api.create_app`: this module may not import
        scheduling's wiring). Batch analyses and sweeps run on a task engine (Ray) the server does not
        build for a resume: they resume from the CLI, which NOT_RESUMABLE names, and the jobs page
        offers no Resume for them."""
        strategy = lambda: self.strategy_lab.service  # noqa: E731
        return JobKinds(
            lambda: self.jobs,
            lambda: SqlTaskStore(self.database),
            [  # lazily: building the app must not build the services (tests set their providers first)
                JobKind(ANALYSIS_KIND, cancel=lambda job_id: self.analyses.cancel(job_id)),
                JobKind(SYNC_KIND, cancel=lambda job_id: self.sync_runs.cancel(job_id)),
                JobKind(
                    EVALUATION_KIND,
                    resume=lambda job_id: resume_evaluation(
                        self.evaluation.service, self.jobs, job_id, self.bounds
                    ),
                    stored_as=EVALUATION_STORED,
                ),
                JobKind(
                    BRIEFING_KIND,
                    resume=lambda job_id: resume_briefing(
                        configured(self.briefing.jobs), self.jobs, job_id, self.briefing_audio
                    ),
                ),
                JobKind(
                    STRATEGY_KIND,
                    resume=lambda run_id: resume_strategy_run(strategy(), self.jobs, run_id),
                    find=lambda run_id: run_record(strategy(), run_id),
                    recent=lambda limit: recent_runs(strategy(), limit),
                ),
                JobKind(
                    PORTFOLIO_VIEW_KIND,
                    resume=lambda job_id: resume_view(self.portfolio.view_jobs, self.jobs, job_id),
                ),
                JobKind(BATCH_KIND, resumed_by=RESUMED_BY_CLI),
                JobKind(SWEEP_KIND, resumed_by=RESUMED_BY_CLI),
                JobKind(SCHEDULED_KIND, resumed_by=RESUMED_BY_CLI),  # the server replaces it (api.py)
            ],
        )

    @cached_property
    def analyses(self) -> AnalysisRuns:
        """Analyses started as jobs (web UI, REST), followed live by their session id."""
        return AnalysisRuns(self.coordinator.service, lambda: self.jobs)

    @cached_property
    def llm_service(self) -> LLMService:
        return build_llm_service(
            self.settings, self.database, model_progress=self.model_progress, distributed=self.distributed
        )

    @cached_property
    def search_service(self) -> WebSearchService:
        return build_search_service(self.settings, self.database, self.data.stored_text_search)

    def close(self) -> None:
        if "jobs" in self.__dict__:
            self.jobs.shutdown()
        if "llm_service" in self.__dict__:
            self.llm_service.close()
        if "database" in self.__dict__:
            self.database.dispose()
