"""C4 of the strategy JSON-params spec: pydantic errors turned into feedback a model can act on.

A retry only helps when the model is told which field is wrong, what it gave, what is allowed
and which value to use instead; the text layout is fixed by the spec ("Error Feedback Format").
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import (
    ALLOWED_VALUES,
    PARAM_FIELDS,
    MomentumStrategyParams,
    StrategyParamRequest,
)

HEADING = "## VALIDATION ERRORS (Please Fix)"
CLOSING = "Please output corrected JSON with valid values."
TOP_LEVEL_FIELDS: tuple[str, ...] = tuple(StrategyParamRequest.model_fields)
MAX_SHOWN_CHARS = 200

_TITLES = {
    "invalid_value": "Invalid value",
    "type_error": "Type error",
    "missing_field": "Missing field",
    "too_short": "Too short",
    "too_long": "Too long",
    "unknown_field": "Unknown field",
    "inconsistent_values": "Inconsistent values",
    "json_error": "No valid JSON",
}
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")


class StructuredErrorFeedback:
    """Generates LLM-friendly error feedback."""

    def format_errors(self, errors: Sequence[ValidationErrorDetail]) -> str:
        """Format errors as retry prompt; "" when there is nothing to fix."""
        if not errors:
            return ""
        lines = [HEADING, ""]
        for number, error in enumerate(errors, start=1):
            lines.extend(_item(number, error))
            lines.append("")
        lines.append(CLOSING)
        return "\n".join(lines)

    def integrate_with_prompt(self, original_prompt: str, errors: Sequence[ValidationErrorDetail]) -> str:
        """The original prompt first, then a blank line and the error block (the model rereads its task)."""
        block = self.format_errors(errors)
        if not block:
            return original_prompt
        return f"{original_prompt.rstrip()}\n\n{block}"


def _item(number: int, error: ValidationErrorDetail) -> list[str]:
    title = _TITLES.get(error.error_type, error.error_type.replace("_", " ").capitalize())
    lines = [f"{number}. **{error.field_path}**: {title}"]
    if error.error_type != "missing_field":
        lines.append(f"   - Given: {show(error.given_value)}")
    if error.error_type == "json_error" and error.message:
        lines.append(f"   - Problem: {error.message}")
    if error.expected_type:
        lines.append(f"   - Expected: {error.expected_type}")
    if error.allowed_values:
        lines.append(f"   - Allowed: {show(list(error.allowed_values))}")
    if error.suggestion:
        lines.append(f"   - Suggestion: {error.suggestion}")
    return lines


def show(value: Any) -> str:
    """A value as the model wrote it in JSON: strings quoted, floats with two decimals at least."""
    if isinstance(value, str):
        if len(value) > MAX_SHOWN_CHARS:
            shortened = json.dumps(value[: MAX_SHOWN_CHARS - 3] + "...", ensure_ascii=False)
            return f"{shortened} ({len(value)} characters)"
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        text = repr(value)
        if "e" in text or "n" in text:  # 1e-05, inf, nan: no padding
            return text
        decimals = len(text.partition(".")[2])
        return f"{value:.2f}" if decimals < 2 else text
    if isinstance(value, list | tuple):
        return "[" + ", ".join(show(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{json.dumps(str(key), ensure_ascii=False)}: {show(item)}" for key, item in value.items())
        return "{" + ", ".join(items) + "}"
    return str(value)


def json_error_detail(message: str, raw: str) -> ValidationErrorDetail:
    """The answer held no JSON at all: show its start and ask for the bare object."""
    return ValidationErrorDetail(
        field_path="$",
        error_type="json_error",
        given_value=raw[:MAX_SHOWN_CHARS],
        suggestion=(
            'Answer with one JSON object {"reasoning": "...", "params": {...}} and nothing else '
            "(no prose, no code)"
        ),
        message=message,
    )


def details_from_validation_error(exc: ValidationError, answer: Any = None) -> list[ValidationErrorDetail]:
    """Every error pydantic found, each with the allowed values and a concrete fix.

    Errors of MomentumStrategyParams validated on its own (parameters typed by a person) get the
    same "params." paths as inside a StrategyParamRequest. With the `answer` that was validated,
    a suggested period also respects the other one (momentum_period <= ma_periods): otherwise the
    closest value can trade one error for another.
    """
    alone = exc.title == MomentumStrategyParams.__name__
    prefix: tuple[str, ...] = ("params",) if alone else ()
    params = answer if alone else (answer.get("params") if isinstance(answer, dict) else None)
    siblings = params if isinstance(params, dict) else {}
    return [_detail(error, prefix, siblings) for error in exc.errors()]


def consistent_candidates(name: str, siblings: dict[str, Any]) -> list[Any] | None:
    """Allowed periods that keep momentum_period <= ma_periods given the other, valid period."""
    other = {"momentum_period": "ma_periods", "ma_periods": "momentum_period"}.get(name)
    if other is None or siblings.get(other) not in ALLOWED_VALUES[other]:
        return None
    bound = siblings[other]
    keep = [v for v in ALLOWED_VALUES[name] if (v <= bound if name == "momentum_period" else v >= bound)]
    return keep or None


def _detail(
    error: Any, prefix: tuple[str, ...] = (), siblings: dict[str, Any] | None = None
) -> ValidationErrorDetail:
    loc = prefix + tuple(str(part) for part in error["loc"])
    path = ".".join(loc) or "$"
    kind = error["type"]
    given = error.get("input")
    name = loc[-1] if loc else "$"
    is_param = len(loc) == 2 and loc[0] == "params" and name in ALLOWED_VALUES
    if kind == "literal_error" and is_param:
        return _literal_detail(path, name, given, error["msg"], consistent_candidates(name, siblings or {}))
    if kind == "missing":
        return _missing_detail(path, name, loc)
    if kind in ("string_too_short", "string_too_long"):
        return _length_detail(path, kind, given, error["msg"])
    if kind == "extra_forbidden":
        valid = list(PARAM_FIELDS) if loc[:1] == ("params",) else list(TOP_LEVEL_FIELDS)
        return ValidationErrorDetail(
            field_path=path,
            error_type="unknown_field",
            given_value=given,
            allowed_values=valid,
            suggestion=f'Remove "{name}"; the valid field names are listed above',
            message=error["msg"],
        )
    if kind == "value_error" and loc == ("params",):
        return _consistency_detail(path, given, error["msg"])
    if kind in ("model_type", "dict_type"):
        return _object_type_detail(path, given, error["msg"])
    if kind == "string_type":
        return ValidationErrorDetail(
            field_path=path,
            error_type="type_error",
            given_value=given,
            expected_type="string",
            suggestion=f"Write {name} as a JSON string of {_reasoning_bounds_text()} characters",
            message=error["msg"],
        )
    return ValidationErrorDetail(
        field_path=path, error_type=kind, given_value=given, suggestion=error["msg"], message=error["msg"]
    )


def _literal_detail(
    path: str, name: str, given: Any, message: str, candidates: list[Any] | None = None
) -> ValidationErrorDetail:
    allowed = ALLOWED_VALUES[name]
    numeric = all(_is_number(value) for value in allowed)
    if (numeric and _is_number(given)) or (not numeric and isinstance(given, str)):
        return ValidationErrorDetail(
            field_path=path,
            error_type="invalid_value",
            given_value=given,
            allowed_values=allowed,
            suggestion=f"Use {show(closest_allowed(name, given, candidates))} (closest valid value)",
            message=message,
        )
    # right value, wrong JSON type: "10%", "0.1", true, null, a list ...
    if numeric:
        expected = "float" if any(isinstance(value, float) for value in allowed) else "int"
    else:
        expected = "string"
    best = closest_allowed(name, given, candidates)
    return ValidationErrorDetail(
        field_path=path,
        error_type="type_error",
        given_value=given,
        allowed_values=allowed,
        expected_type=expected,
        suggestion=f"Use {show(best)} instead of {show(given)}",
        message=message,
    )


def closest_allowed(field: str, given: Any, candidates: list[Any] | None = None) -> Any:
    """The allowed value of `field` nearest to what was given.

    Numbers: smallest distance, ties to the lower value; a fraction field given a percentage
    (stop_loss 10 or "10%") is read as 0.10. Strings: case-insensitive match, then prefix
    ("weekly" -> "W"), then the most similar spelling. Anything else: the middle allowed value.
    `candidates` narrows the allowed values (e.g. to those consistent with another field).
    """
    allowed = candidates or ALLOWED_VALUES[field]
    if all(_is_number(value) for value in allowed):
        number = _as_number(given)
        if number is None:
            return example_value(field)
        if all(0 < value < 1 for value in allowed) and 1 < abs(number) <= 100:
            number /= 100
        return min(allowed, key=lambda value: (round(abs(value - number), 9), value))
    if isinstance(given, list) and len(given) == 1:
        given = given[0]
    if not isinstance(given, str) or not given.strip():
        return example_value(field)
    text = given.strip().lower()
    for value in allowed:
        if str(value).lower() == text:
            return value
    for value in allowed:
        if text.startswith(str(value).lower()) or str(value).lower().startswith(text):
            return value
    return max(allowed, key=lambda value: difflib.SequenceMatcher(None, text, str(value).lower()).ratio())


def example_value(field: str) -> Any:
    """A valid value to name in a suggestion: the middle of the allowed list."""
    allowed = ALLOWED_VALUES[field]
    return allowed[(len(allowed) - 1) // 2]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _as_number(value: Any) -> float | None:
    """A number from a number or a numeric string ("10%" -> 0.1, "20 days" -> 20)."""
    if _is_number(value):
        return float(value)
    if not isinstance(value, str):
        return None
    match = _NUMBER.search(value)
    if match is None:
        return None
    number = float(match.group())
    return number / 100 if "%" in value[match.end() :] else number


def _missing_detail(path: str, name: str, loc: tuple[str, ...]) -> ValidationErrorDetail:
    if len(loc) == 2 and loc[0] == "params" and name in ALLOWED_VALUES:
        example = example_value(name)
        return ValidationErrorDetail(
            field_path=path,
            error_type="missing_field",
            given_value=None,
            allowed_values=ALLOWED_VALUES[name],
            suggestion=f'Add "{name}": {show(example)} (or another allowed value)',
            message="Field required",
        )
    if loc == ("reasoning",):
        suggestion = f'Add "reasoning": a {_reasoning_bounds_text()} character explanation of your choices'
    elif loc == ("params",):
        suggestion = f'Add "params": an object with the fields {", ".join(PARAM_FIELDS)}'
    else:
        suggestion = f'Add "{name}"'
    return ValidationErrorDetail(
        field_path=path,
        error_type="missing_field",
        given_value=None,
        suggestion=suggestion,
        message="Field required",
    )


def _reasoning_bounds() -> tuple[int, int]:
    low = high = 0
    for rule in StrategyParamRequest.model_fields["reasoning"].metadata:
        low = getattr(rule, "min_length", None) or low
        high = getattr(rule, "max_length", None) or high
    return low, high


def _reasoning_bounds_text() -> str:
    low, high = _reasoning_bounds()
    return f"{low}-{high}"


def _length_detail(path: str, kind: str, given: Any, message: str) -> ValidationErrorDetail:
    low, high = _reasoning_bounds()
    length = len(given) if isinstance(given, str) else 0
    if kind == "string_too_short":
        suggestion = f"Explain your choices in at least {low} characters (at most {high}); you wrote {length}"
        error_type = "too_short"
    else:
        suggestion = f"Shorten it to at most {high} characters (at least {low}); you wrote {length}"
        error_type = "too_long"
    return ValidationErrorDetail(
        field_path=path, error_type=error_type, given_value=given, suggestion=suggestion, message=message
    )


def _consistency_detail(path: str, given: Any, message: str) -> ValidationErrorDetail:
    """The model validator's rule momentum_period <= ma_periods, with a fix from the given values."""
    values = given if isinstance(given, dict) else {}
    momentum, ma = values.get("momentum_period"), values.get("ma_periods")
    if not (_is_number(momentum) and _is_number(ma) and momentum > ma):
        return ValidationErrorDetail(
            field_path=path,
            error_type="inconsistent_values",
            given_value=given,
            suggestion=message,
            message=message,
        )
    longer = [value for value in ALLOWED_VALUES["ma_periods"] if value >= momentum]
    shorter = [value for value in ALLOWED_VALUES["momentum_period"] if value <= ma]
    options = []
    if longer:
        options.append(f"ma_periods >= {momentum}, e.g. {min(longer)}")
    if shorter:
        options.append(f"momentum_period <= {ma}")
    return ValidationErrorDetail(
        field_path=path,
        error_type="inconsistent_values",
        given_value={"momentum_period": momentum, "ma_periods": ma},
        suggestion="Use " + ", or ".join(options) + " (momentum_period must not exceed ma_periods)",
        message=message,
    )


def _object_type_detail(path: str, given: Any, message: str) -> ValidationErrorDetail:
    if path == "params":
        suggestion = f'Give "params" as an object with the fields {", ".join(PARAM_FIELDS)}'
    else:
        suggestion = 'Answer with one JSON object {"reasoning": "...", "params": {...}}'
    return ValidationErrorDetail(
        field_path=path,
        error_type="type_error",
        given_value=given,
        expected_type="object",
        suggestion=suggestion,
        message=message,
    )
