"""Composition of the ticker briefing script (debate-panel-and-ticker-scripts.md, section 7): the
panel, its tools, the tool-less worker and refiner agents over one LLMHandle, and the durable jobs
over the task store."""

from __future__ import annotations

from collections.abc import Callable

from stockdesk.briefing.application import BriefingJobs, BriefingService
from stockdesk.briefing.infrastructure.agents.script_refiner.agent import ScriptRefinerAgent
from stockdesk.briefing.infrastructure.agents.script_worker.agent import ScriptWorkerAgent
from stockdesk.debate.application import PanelDebateService, PanelTools
from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.shared.tasks import ITaskStore

# The debate's temperature; up to 10 turns of 1-3 sentences as JSON (the debate's 600 tokens cut them off).
SAMPLING = Sampling(temperature=0.3, max_tokens=1600)
DEFAULT_SLOTS = 2  # tickers debated at once (each debate already runs four experts in parallel)


def build_briefing_service(
    panel: PanelDebateService,
    tools: PanelTools,
    llm: LLMHandle,
    *,
    panel_with_rounds: Callable[[int], PanelDebateService],
    slots: int = DEFAULT_SLOTS,
) -> BriefingService:
    return BriefingService(
        panel,
        tools,
        ScriptWorkerAgent(llm),
        ScriptRefinerAgent(llm),
        panel_with_rounds=panel_with_rounds,
        slots=slots,
    )


def build_briefing_jobs(service: BriefingService, tasks: ITaskStore) -> BriefingJobs:
    return BriefingJobs(service, tasks)
