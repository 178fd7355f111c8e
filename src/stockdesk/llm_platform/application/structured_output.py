"""The one structured-output path: bounded schema in, tolerant JSON extraction, pydantic validation.

Small local models wrap JSON in prose, code fences or `<think>` blocks; remote ones sometimes stop
at the token limit. Everything here is pure so that every expert parser can reuse it.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
RAW_LOG_LIMIT = 2000  # characters of a rejected answer kept in the log
DEFAULT_MAX_ITEMS = 12
DEFAULT_MAX_LENGTH = 1200

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"</?think>", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def strip_thinking(text: str) -> str:
    """Remove closed reasoning blocks; of an unterminated `<think>` only the tag is dropped.

    A model cut off inside its reasoning may still have written the JSON after it.
    """
    return _OPEN_THINK.sub("", _THINK.sub("", text)).strip()


def extract_json_text(text: str) -> str:
    """Return the first complete JSON object or array in `text`.

    Order: fenced block, else the first balanced `{...}`/`[...]` outside strings.
    Raises ValueError when there is none.
    """
    cleaned = strip_thinking(text)
    for block in _FENCE.findall(cleaned):
        candidate = _first_balanced(block)
        if candidate is not None:
            return candidate
    candidate = _first_balanced(cleaned)
    if candidate is None:
        raise ValueError("no JSON object found in the model output")
    return candidate


def _first_balanced(text: str) -> str | None:
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        end = _balanced_end(text, start)
        if end is not None:
            candidate = text[start : end + 1]
            try:
                json.loads(candidate)
            except json.JSONDecodeError:
                continue
            return candidate
    return None


def _balanced_end(text: str, start: int) -> int | None:
    closer = {"{": "}", "[": "]"}
    stack: list[str] = []
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in closer:
            stack.append(closer[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index
    return None


@functools.lru_cache(maxsize=256)
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Generating a model's JSON schema is slow and its result never changes: once per model."""
    return model.model_json_schema()


def bounded_schema(
    model_or_schema: type[BaseModel] | dict[str, Any],
    *,
    max_items: int = DEFAULT_MAX_ITEMS,
    max_length: int = DEFAULT_MAX_LENGTH,
) -> dict[str, Any]:
    """JSON schema with maxItems/maxLength on every list/string that lacks one.

    Grammar-constrained decoding follows the schema; without bounds a small model can loop
    until the token limit.
    """
    source = model_or_schema if isinstance(model_or_schema, dict) else _model_schema(model_or_schema)
    schema = copy.deepcopy(source)

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if kind == "array":
                node.setdefault("maxItems", max_items)
            if kind == "string" and "enum" not in node and "const" not in node:
                node.setdefault("maxLength", max_length)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema)
    return schema


def validation_feedback(exc: ValidationError) -> list[str]:
    """One line per error: field path, given value, what is allowed."""
    lines = []
    for error in exc.errors():
        path = ".".join(str(p) for p in error["loc"]) or "(root)"
        given = json.dumps(error.get("input"), ensure_ascii=False, default=str)
        if len(given) > 120:
            given = given[:117] + "..."
        allowed = error.get("ctx", {}).get("expected")
        line = f"field `{path}`: given {given}: {error['msg']}"
        if allowed:
            line += f" (allowed: {allowed})"
        lines.append(line)
    return lines


def parse_structured(text: str, model: type[BaseModel], *, finish_reason: str | None = None) -> BaseModel:
    """Extract and validate; raise LLMOutputParseError with actionable error lines."""
    if finish_reason == "length":
        raise LLMOutputParseError(
            "the model stopped at the token limit before finishing its JSON",
            raw_output=text,
            errors=["output truncated (finish_reason=length): answer more briefly"],
        )
    try:
        payload = json.loads(extract_json_text(text))
    except ValueError as exc:
        raise LLMOutputParseError(
            f"model output is not JSON: {exc}",
            raw_output=text,
            errors=[f"{exc}: answer with one JSON object only"],
        ) from exc
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        errors = validation_feedback(exc)
        raise LLMOutputParseError(
            f"model JSON does not match {model.__name__}: {errors[0]}", raw_output=text, errors=errors
        ) from exc


def parse_or_log(text: str, model: type[T], label: str) -> T:
    """An agent's strict parser: parse_structured, and a rejected answer is logged (truncated) under
    `label` before LLMOutputParseError propagates."""
    try:
        parsed = parse_structured(text, model)
    except LLMOutputParseError as exc:
        logger.error("%s output rejected: %s; raw=%r", label, exc.message, text[:RAW_LOG_LIMIT])
        raise
    assert isinstance(parsed, model)
    return parsed


def repair_prompt(errors: list[str]) -> str:
    """The follow-up message of the single repair attempt."""
    listed = "\n".join(f"- {line}" for line in errors)
    return (
        "Your previous answer could not be accepted:\n"
        f"{listed}\n"
        "Return the corrected answer as one JSON object only, no prose, no code fences."
    )
