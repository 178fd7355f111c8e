"""IScriptRefinerPort: the merged script's minimal form -> one tool-less LLM call -> strict parse.

The turns go in as one JSON object per line (`scripts_minimal`, spec 7.3), the sections as id
ranges; which edits survive is decided in code (application/briefing/edits.py).
"""

from __future__ import annotations

import json

from stockdesk.briefing.domain.dtos import RefinerReply
from stockdesk.briefing.domain.ports import IScriptRefinerPort, RefinerAnswer, RefinerInput
from stockdesk.briefing.infrastructure.agents.script_refiner.output_parser import CALLER, parse_refiner_reply
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.shared.prompts import load_prompts


class ScriptRefinerAgent(IScriptRefinerPort):
    def __init__(self, llm: LLMHandle):
        self._llm = llm
        self._prompts = load_prompts(__package__ or "")

    def answer(self, question: RefinerInput, feedback: str | None = None) -> RefinerAnswer:
        """One call; `feedback` is not used: the refiner is asked once."""
        job = question
        prompt = self._prompts.render_user(
            tickers=", ".join(job.tickers),
            speakers=", ".join(job.speakers),
            sections="\n".join(f"{s.ticker}: ids {s.start_id}-{s.end_id}" for s in job.sections),
            scripts="\n".join(json.dumps(t.model_dump(), ensure_ascii=False) for t in job.scripts),
        )
        reply = self._llm.generate(prompt, self._prompts.system, response_model=RefinerReply, caller=CALLER)
        parsed = parse_refiner_reply(reply.text)
        return RefinerAnswer(input=prompt, output=reply.text, parsed=parsed, tokens=reply.tokens)
