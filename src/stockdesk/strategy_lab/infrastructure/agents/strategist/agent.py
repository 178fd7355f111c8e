"""IStrategist over llm_platform's LLMService: prompt resources in, raw text out.

The answer is deliberately asked for as plain text, a REASONING section then a JSON section (the
spec's "reasoning separated" layout, not a provider's JSON mode): the template code generator splits
and validates it, and its structured feedback drives the retries.
"""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.shared.prompts import load_prompts
from stockdesk.strategy_lab.domain.ports import IStrategist, PromptContext, StrategistReply

CALLER = "strategy_lab.strategist"


class StrategistAgent(IStrategist):
    def __init__(
        self, llm: LLMService, *, temperature: float = 0.7, max_tokens: int = 600, seed: int | None = None
    ):
        """`seed`: every call samples with it (a sweep's proposals differ by seed only)."""
        self._llm = llm
        self._prompts = load_prompts(__package__)
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._seed = seed

    def render(self, context: PromptContext) -> str:
        return self._prompts.render_user(**context.model_dump())

    def complete(self, prompt: str, run_id: str | None = None) -> StrategistReply:
        if run_id is None:
            return self._call(prompt)
        with self._llm.run_scope(run_id):
            return self._call(prompt)

    def _call(self, prompt: str) -> StrategistReply:
        result = self._llm.generate(
            prompt,
            self._prompts.system,
            temperature=self._temperature,
            max_tokens=self._max_tokens,
            caller=CALLER,
            seed=self._seed,
        )
        return StrategistReply(prompt=prompt, text=result.text, tokens=result.usage.total_tokens)
