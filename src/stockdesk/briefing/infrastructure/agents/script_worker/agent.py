"""IScriptWorkerPort: one ticker's inputs -> one tool-less LLM call -> strict parse (spec 7.2)."""

from __future__ import annotations

from stockdesk.briefing.domain.dtos import WorkerReply
from stockdesk.briefing.domain.ports import IScriptWorkerPort, WorkerAnswer, WorkerInput
from stockdesk.briefing.infrastructure.agents.script_worker.output_parser import CALLER, parse_worker_reply
from stockdesk.briefing.infrastructure.agents.script_worker.render import (
    render_base,
    render_debate,
    render_intraday,
)
from stockdesk.debate.application.sources import render_sources
from stockdesk.llm_platform.application.agent import PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle

FEEDBACK_HEADER = "\n\n## Your last answer did not pass the checks; fix it\n"


class ScriptWorkerAgent(IScriptWorkerPort):
    def __init__(self, llm: LLMHandle):
        self._agent = PromptAgent(
            llm,
            package=__package__ or "",
            agent="script_worker",
            caller=CALLER,
            output_model=WorkerReply,
            parse=parse_worker_reply,
            header=FEEDBACK_HEADER,
        )

    def answer(self, question: WorkerInput, feedback: str | None = None) -> WorkerAnswer:
        """One call; a re-ask (the same input with `feedback`) gets the findings after the prompt."""
        job = question
        day = f"{job.date[:4]}-{job.date[4:6]}-{job.date[6:]}"
        return self._agent.ask(
            feedback,
            ticker=job.ticker,
            date=day,
            index=job.index,
            total=job.total,
            tickers=", ".join(job.tickers),
            base_script=render_base(job.base_script),
            debate=render_debate(job.debate, job.sources),
            intraday=render_intraday(job.intraday_rows, job.intraday_summary, job.intraday_note),
            sources=render_sources(job.sources),
        )
