"""Composition of the ticker briefing script (spec 7): the panel, its tools, the tool-less worker and
refiner agents over one LLMHandle, and the durable jobs over the task store."""

from __future__ import annotations

from collections.abc import Callable

from stockdesk.debate.application.briefing import BriefingJobs, BriefingService
from stockdesk.debate.application.briefing.service import PanelRunner
from stockdesk.debate.domain.ports.panel import IPanelToolsPort
from stockdesk.debate.infrastructure.agents.script_refiner.agent import ScriptRefinerAgent
from stockdesk.debate.infrastructure.agents.script_worker.agent import ScriptWorkerAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.shared.tasks import ITaskStore

BRIEFING_MAX_TOKENS = 1600  # up to 10 turns of 1-3 sentences as JSON; the debate's 600 cut them off
DEFAULT_SLOTS = 2  # tickers debated at once (each debate already runs four experts in parallel)


def build_briefing_service(
    panel: PanelRunner,
    tools: IPanelToolsPort,
    llm: LLMHandle,
    *,
    panel_with_rounds: Callable[[int], PanelRunner],
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
