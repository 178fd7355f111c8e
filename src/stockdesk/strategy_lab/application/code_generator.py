"""C3 of the strategy JSON-params spec: LLM answer -> validated parameters -> checked strategy code.

The model only chooses parameters; the code always comes from the template, so a bad answer
yields structured errors for a retry and never half-written code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import ValidationError

from stockdesk.llm_platform.application.structured_output import extract_json_text, strip_thinking
from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.application.feedback import (
    StructuredErrorFeedback,
    details_from_validation_error,
    json_error_detail,
)
from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams, StrategyParamRequest
from stockdesk.strategy_lab.domain.ports import IStrategyTemplate


@dataclass
class GenerationResult:
    """Result of code generation attempt."""

    success: bool
    code: str | None = None
    params: MomentumStrategyParams | None = None
    errors: list[ValidationErrorDetail] = field(default_factory=list)
    reasoning: str | None = None

    def get_feedback_prompt(self) -> str:
        """Generate LLM-friendly error feedback for retry ("" when the attempt succeeded)."""
        if self.success:
            return ""
        return StructuredErrorFeedback().format_errors(self.errors)


class TemplateCodeGenerator:
    """Generates strategy code from validated JSON parameters."""

    def __init__(self, template: IStrategyTemplate):
        self.template = template

    def generate(self, llm_output: str) -> GenerationResult:
        """Parse the raw answer, validate every field, render and check the code.

        Extraction and validation are separate steps on purpose: pydantic's ValidationError is a
        ValueError, and catching both in one place would report schema errors as "no JSON".
        UnsafeStrategyCodeError is not caught: it means the template is broken, not the answer.
        """
        try:
            json_text = self._extract_json(llm_output)
        except ValueError as exc:
            return GenerationResult(success=False, errors=[json_error_detail(str(exc), llm_output)])
        try:
            request = self._validate_params(json_text)
        except ValidationError as exc:
            answer = json.loads(json_text)  # extraction guaranteed it parses
            return GenerationResult(success=False, errors=details_from_validation_error(exc, answer))
        code = self.render(request.params)
        return GenerationResult(success=True, code=code, params=request.params, reasoning=request.reasoning)

    def render(self, params: MomentumStrategyParams) -> str:
        """Checked code for validated parameters: what an iteration stores and shows (the sandbox
        renders and checks its own copy from the same parameters to run it)."""
        code = self._inject_params(params)
        check_strategy_code(code)
        return code

    def _extract_json(self, raw_output: str) -> str:
        """Extract JSON from LLM output (handles markdown blocks, prose and <think> blocks).

        The shared extractor returns the first JSON value; when that is an array (a "[5, 10]" quoted
        in the prose) and an object follows, the object is the answer.
        """
        found = extract_json_text(raw_output)
        if found.startswith("{"):
            return found
        cleaned = strip_thinking(raw_output)
        decoder = json.JSONDecoder()
        start = cleaned.find("{")
        while start != -1:
            try:
                value, end = decoder.raw_decode(cleaned, start)
            except json.JSONDecodeError:
                value, end = None, start
            if isinstance(value, dict):
                return cleaned[start:end]
            start = cleaned.find("{", start + 1)
        return found

    def _validate_params(self, json_str: str) -> StrategyParamRequest:
        """Validate JSON against Pydantic schema (raises pydantic.ValidationError with every error)."""
        return StrategyParamRequest.model_validate_json(json_str)

    def _inject_params(self, params: MomentumStrategyParams) -> str:
        """Inject validated params into template code."""
        return self.template.render(params)
