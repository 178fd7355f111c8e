"""IScriptRefinerPort: the merged script's minimal form -> one tool-less LLM call -> strict parse.

The turns go in as one JSON object per line (`scripts_minimal`, spec 7.3), the sections as id
ranges; which edits survive is decided in code (application/briefing/edits.py).
"""

from __future__ import annotations

import json

from stockdesk.briefing.domain.dtos import RefinerReply
from stockdesk.briefing.domain.ports import IScriptRefinerPort, RefinerAnswer, RefinerInput
from stockdesk.briefing.infrastructure.agents.script_refiner.output_parser import CALLER, parse_refiner_reply
from stockdesk.llm_platform.application.agent import PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle


class ScriptRefinerAgent(IScriptRefinerPort):
    def __init__(self, llm: LLMHandle):
        self._agent = PromptAgent(
            llm,
            package=__package__ or "",
            agent="script_refiner",
            caller=CALLER,
            output_model=RefinerReply,
            parse=parse_refiner_reply,
        )

    def answer(self, question: RefinerInput, feedback: str | None = None) -> RefinerAnswer:
        """One call; `feedback` is not used: the refiner is asked once."""
        job = question
        return self._agent.ask(
            None,
            tickers=", ".join(job.tickers),
            speakers=", ".join(job.speakers),
            sections="\n".join(f"{s.ticker}: ids {s.start_id}-{s.end_id}" for s in job.sections),
            scripts="\n".join(json.dumps(t.model_dump(), ensure_ascii=False) for t in job.scripts),
        )
