"""The spec's retry logic: ask, generate, and on failure ask again with structured feedback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from stockdesk.strategy_lab.application.code_generator import GenerationResult, TemplateCodeGenerator
from stockdesk.strategy_lab.application.feedback import StructuredErrorFeedback
from stockdesk.strategy_lab.domain.errors import GenerationFailedError, ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategist, PromptContext, StrategistQuestion

MAX_RETRIES = 3
Rejection = Callable[[StrategyParams], list[ValidationErrorDetail]]


@dataclass
class GenerationOutcome:
    result: GenerationResult
    attempts: int
    tokens: int
    errors: list[ValidationErrorDetail] = field(default_factory=list)  # of the failed attempts before


def generate_with_feedback(
    strategist: IStrategist,
    generator: TemplateCodeGenerator,
    context: PromptContext,
    *,
    max_attempts: int = MAX_RETRIES,
    reject: Rejection | None = None,
    run_id: str | None = None,
    on_attempt: Callable[[int], None] | None = None,
) -> GenerationOutcome:
    """Up to `max_attempts` LLM calls; raises GenerationFailedError carrying every attempt's errors.

    `reject` adds checks the schema cannot know (e.g. a parameter set already tried in this run);
    its errors are fed back exactly like schema errors.
    """
    feedback = StructuredErrorFeedback()
    question = StrategistQuestion(context, run_id)
    errors_block, tokens, failed = "", 0, []
    for attempt in range(1, max_attempts + 1):
        if on_attempt is not None:
            on_attempt(attempt)
        reply = strategist.answer(question, errors_block or None)
        tokens += reply.tokens
        result = generator.generate(reply.text)
        if result.success and reject is not None and result.params is not None:
            extra = reject(result.params)
            if extra:
                result = GenerationResult(
                    success=False, params=result.params, errors=extra, reasoning=result.reasoning
                )
        if result.success:
            return GenerationOutcome(result=result, attempts=attempt, tokens=tokens, errors=failed)
        failed.extend(result.errors)
        errors_block = feedback.format_errors(result.errors)
    raise GenerationFailedError(failed, max_attempts, tokens=tokens)
