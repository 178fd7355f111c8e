"""C3 of the strategy JSON-params spec: LLM answer -> validated parameters -> checked strategy code.

The model only chooses a family and its parameters; the code always comes from that family's
template, so a bad answer yields structured errors for a retry and never half-written code. The
answer is a REASONING section then a JSON section (answer_sections.py has the exact layout).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from stockdesk.strategy_lab.application.answer_sections import (
    AnswerFormatError,
    AnswerSections,
    split_sections,
)
from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.application.feedback import (
    StructuredErrorFeedback,
    details_from_validation_error,
    format_error_detail,
    json_error_detail,
    length_detail,
)
from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import StrategyParamJSON, StrategyParamRequest, StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategyTemplate

# The REASONING section checked with the request's own bounds (one place says 50-500).
_REASONING: TypeAdapter[str] = TypeAdapter(Annotated[str, StrategyParamRequest.model_fields["reasoning"]])


@dataclass
class GenerationResult:
    """Result of code generation attempt."""

    success: bool
    code: str | None = None
    params: StrategyParams | None = None
    errors: list[ValidationErrorDetail] = field(default_factory=list)
    reasoning: str | None = None

    def get_feedback_prompt(self) -> str:
        """Generate LLM-friendly error feedback for retry ("" when the attempt succeeded)."""
        if self.success:
            return ""
        return StructuredErrorFeedback().format_errors(self.errors)


class TemplateCodeGenerator:
    """Generates strategy code from validated parameters of any family."""

    def __init__(self, template: IStrategyTemplate):
        self.template = template

    def generate(self, llm_output: str) -> GenerationResult:
        """Split the answer, validate the reasoning and every parameter, render and check the code.

        Layout, reasoning and JSON errors are collected separately on purpose: pydantic's
        ValidationError is a ValueError, and catching both in one place would report schema errors
        as "no JSON". UnsafeStrategyCodeError is not caught: it means the template is broken, not
        the answer.
        """
        try:
            sections = self._split(llm_output)
        except AnswerFormatError as exc:
            make = json_error_detail if exc.kind == "json_error" else format_error_detail
            return GenerationResult(success=False, errors=[make(exc.problem, exc.given or llm_output)])
        errors = reasoning_errors(sections.reasoning)
        try:
            parsed = self._validate_params(sections.json_text)
        except ValidationError as exc:
            answer: Any = TypeAdapter(Any).validate_json(sections.json_text)  # the split guaranteed it parses
            errors.extend(details_from_validation_error(exc, answer))
            return GenerationResult(success=False, errors=errors)
        if errors:
            return GenerationResult(success=False, params=parsed.params, errors=errors)
        request = StrategyParamRequest(reasoning=sections.reasoning, params=parsed.params)
        code = self.render(request.params)
        return GenerationResult(success=True, code=code, params=request.params, reasoning=request.reasoning)

    def render(self, params: StrategyParams) -> str:
        """Checked code for validated parameters: what an iteration stores and shows (the sandbox
        renders and checks its own copy from the same parameters to run it)."""
        code = self._inject_params(params)
        check_strategy_code(code)
        return code

    def _split(self, raw_output: str) -> AnswerSections:
        """The REASONING and JSON sections (raises AnswerFormatError)."""
        return split_sections(raw_output)

    def _validate_params(self, json_str: str) -> StrategyParamJSON:
        """Validate the JSON section against the union schema (raises pydantic.ValidationError with
        every error)."""
        return StrategyParamJSON.model_validate_json(json_str)

    def _inject_params(self, params: StrategyParams) -> str:
        """Inject validated params into the family's template code."""
        return self.template.render(params)


def reasoning_errors(reasoning: str) -> list[ValidationErrorDetail]:
    """The REASONING section's length, with the feedback a too short or too long text gets."""
    try:
        _REASONING.validate_python(reasoning)
    except ValidationError as exc:
        return [length_detail("reasoning", e["type"], reasoning, e["msg"]) for e in exc.errors()]
    return []
