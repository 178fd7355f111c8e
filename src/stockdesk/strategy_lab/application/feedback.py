"""C4 of the strategy JSON-params spec: pydantic errors turned into feedback a model can act on.

A retry only helps when the model is told which field is wrong, what it gave, what is allowed
and which value to use instead; the text layout is fixed by the spec ("Error Feedback Format").
With three families the allowed values are those of the family the answer chose (its
`strategy_type`); paths never show pydantic's union tag (`params.lookback`, not
`params.mean_reversion.lookback`), and a field of another family is named as such.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from stockdesk.strategy_lab.application.family_rules import broken_rule, consistent_candidates
from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import (
    DEFAULT_FAMILY,
    FAMILIES,
    FAMILY_ALLOWED,
    FAMILY_MODELS,
    StrategyParamJSON,
    StrategyParamRequest,
)

HEADING = "## VALIDATION ERRORS (Please Fix)"
CLOSING = "Please output corrected JSON with valid values."
TOP_LEVEL_FIELDS: tuple[str, ...] = tuple(StrategyParamJSON.model_fields)
MAX_SHOWN_CHARS = 200
# What a well-formed answer looks like; the format errors' suggestion shows it.
LAYOUT = (
    "REASONING:\n"
    "<50-500 characters: why this family and these values>\n"
    "\n"
    "JSON:\n"
    '{"params": {"strategy_type": "<momentum, mean_reversion or volatility>", <the fields of that family>}}'
)

_TITLES = {
    "invalid_value": "Invalid value",
    "type_error": "Type error",
    "missing_field": "Missing field",
    "too_short": "Too short",
    "too_long": "Too long",
    "unknown_field": "Unknown field",
    "wrong_family_field": "Field of another family",
    "inconsistent_values": "Inconsistent values",
    "json_error": "No valid JSON",
    "format_error": "Wrong answer layout",
}
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")
_MODEL_FAMILY = {model.__name__: family for family, model in FAMILY_MODELS.items()}
_WRAPPERS = (StrategyParamJSON.__name__, StrategyParamRequest.__name__)


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
        return after_prompt(original_prompt, self.format_errors(errors))


def after_prompt(prompt: str, block: str | None) -> str:
    """The prompt first, then a blank line and the error block (the model rereads its task)."""
    return f"{prompt.rstrip()}\n\n{block}" if block else prompt


def _item(number: int, error: ValidationErrorDetail) -> list[str]:
    title = _TITLES.get(error.error_type, error.error_type.replace("_", " ").capitalize())
    lines = [f"{number}. **{error.field_path}**: {title}"]
    if error.error_type != "missing_field":
        lines.append(f"   - Given: {show(error.given_value)}")
    if error.error_type in ("json_error", "format_error") and error.message:
        lines.append(f"   - Problem: {error.message}")
    if error.expected_type:
        lines.append(f"   - Expected: {error.expected_type}")
    if error.allowed_values:
        lines.append(f"   - Allowed: {show(list(error.allowed_values))}")
    if error.suggestion:
        first, *rest = error.suggestion.split("\n")
        lines.append(f"   - Suggestion: {first}")
        lines.extend(f"     {line}".rstrip() for line in rest)  # a multi-line layout stays inside the item
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
    """The JSON section is not JSON: show the start of what was written and the expected shape."""
    return ValidationErrorDetail(
        field_path="$",
        error_type="json_error",
        given_value=raw[:MAX_SHOWN_CHARS],
        suggestion=(
            'After the "JSON:" heading write one JSON object {"params": {...}} and nothing after it '
            "(double-quoted keys, no comments, no code)"
        ),
        message=message,
    )


def format_error_detail(message: str, raw: str) -> ValidationErrorDetail:
    """The answer is not laid out as REASONING: then JSON:; the suggestion shows the exact layout."""
    return ValidationErrorDetail(
        field_path="$",
        error_type="format_error",
        given_value=raw[:MAX_SHOWN_CHARS],
        suggestion="Answer in exactly this layout, each heading on its own line:\n" + LAYOUT,
        message=message,
    )


def details_from_validation_error(exc: ValidationError, answer: Any = None) -> list[ValidationErrorDetail]:
    """Every error pydantic found, each with the allowed values and a concrete fix.

    Parameters validated on their own (a family's model, or `validate_params` for parameters typed
    by a person) get the same "params." paths as inside the JSON section. `answer` is what was
    validated: with it the chosen family is known when the error does not say, and a suggested
    value also respects the family's rules with the other fields (otherwise the closest value can
    trade one error for another).
    """
    alone = exc.title not in _WRAPPERS
    params = answer if alone else (answer.get("params") if isinstance(answer, dict) else None)
    siblings = params if isinstance(params, dict) else {}
    fallback = _MODEL_FAMILY.get(exc.title)
    details = [_detail(error, alone, siblings, fallback) for error in exc.errors()]
    family = siblings.get("strategy_type", fallback)
    # pydantic runs a model's rules only once every field is valid: say a broken rule between
    # fields that are valid now, so one retry can fix everything
    if (
        family in FAMILIES
        and not any(d.error_type == "inconsistent_values" for d in details)
        and broken_rule(family, siblings) is not None
    ):
        details.append(_consistency_detail("params", siblings, "the parameters break a rule", family))
    return details


def _chosen_family(tag: str | None, siblings: dict[str, Any], fallback: str | None) -> str:
    if tag is not None:
        return tag
    given = siblings.get("strategy_type")
    if isinstance(given, str) and given in FAMILIES:
        return given
    return fallback or DEFAULT_FAMILY


def _normalised(loc: tuple[Any, ...], alone: bool) -> tuple[str | None, tuple[str, ...]]:
    """(the union tag pydantic put in the path, the path without it, always under "params")."""
    parts = tuple(str(part) for part in loc)
    if alone:
        parts = ("params", *parts)
    if len(parts) >= 2 and parts[0] == "params" and parts[1] in FAMILIES:
        return parts[1], ("params", *parts[2:])
    return None, parts


def _detail(error: Any, alone: bool, siblings: dict[str, Any], fallback: str | None) -> ValidationErrorDetail:
    tag, loc = _normalised(error["loc"], alone)
    family = _chosen_family(tag, siblings, fallback)
    path = ".".join(loc) or "$"
    kind = error["type"]
    given = error.get("input")
    name = loc[-1] if loc else "$"
    in_params = len(loc) == 2 and loc[0] == "params"
    if kind in ("union_tag_invalid", "union_tag_not_found") or (in_params and name == "strategy_type"):
        return _family_detail(kind, siblings, error["msg"])
    if kind == "literal_error" and in_params and name in FAMILY_ALLOWED[family]:
        candidates = consistent_candidates(name, siblings, family)
        return _literal_detail(path, name, given, error["msg"], candidates, family)
    if kind == "missing":
        return _missing_detail(path, name, loc, family, siblings)
    if kind in ("string_too_short", "string_too_long"):
        return length_detail(path, kind, given, error["msg"])
    if kind == "extra_forbidden":
        return _extra_detail(path, name, loc, given, family, error["msg"])
    if kind == "value_error" and loc == ("params",):
        return _consistency_detail(path, given, error["msg"], family)
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return _object_type_detail(path, given, error["msg"])
    return ValidationErrorDetail(
        field_path=path, error_type=kind, given_value=given, suggestion=error["msg"], message=error["msg"]
    )


def families_of(name: str) -> list[str]:
    """The families that have a parameter called `name`, in FAMILIES order."""
    return [family for family in FAMILIES if name in FAMILY_ALLOWED[family]]


def _or(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def family_from_fields(siblings: dict[str, Any]) -> str | None:
    """The one family whose own parameters the given fields name most (None: no clear winner)."""
    counts = {family: sum(1 for name in siblings if name in FAMILY_ALLOWED[family]) for family in FAMILIES}
    best = max(counts.values())
    winners = [family for family, count in counts.items() if count == best]
    return winners[0] if best and len(winners) == 1 else None


def closest_family(given: Any, siblings: dict[str, Any]) -> str:
    """For an unknown strategy_type: a spelling match, else the family of the given fields, else
    the most similar name."""
    text = given.strip().lower().replace("-", "_").replace(" ", "_") if isinstance(given, str) else ""
    for family in FAMILIES:
        if text and (text == family or family.startswith(text) or text.startswith(family)):
            return family
    by_fields = family_from_fields(siblings)
    if by_fields is not None or not text:
        return by_fields or DEFAULT_FAMILY
    return max(FAMILIES, key=lambda family: difflib.SequenceMatcher(None, text, family).ratio())


def _family_detail(kind: str, siblings: dict[str, Any], message: str) -> ValidationErrorDetail:
    """strategy_type missing, or not one of the families."""
    path = "params.strategy_type"
    if kind == "union_tag_not_found" or "strategy_type" not in siblings:
        guess = family_from_fields(siblings)
        if guess is not None:
            suggestion = (
                f'Add "strategy_type": {show(guess)} (the other fields you gave are {guess} parameters)'
            )
        else:
            suggestion = (
                f'Add "strategy_type": one of {_or([show(f) for f in FAMILIES])}, then that family\'s fields'
            )
        return ValidationErrorDetail(
            field_path=path,
            error_type="missing_field",
            given_value=None,
            allowed_values=list(FAMILIES),
            suggestion=suggestion,
            message=message,
        )
    given = siblings.get("strategy_type")
    return ValidationErrorDetail(
        field_path=path,
        error_type="invalid_value",
        given_value=given,
        allowed_values=list(FAMILIES),
        suggestion=f"Use {show(closest_family(given, siblings))} (closest valid value)",
        message=message,
    )


def _extra_detail(
    path: str, name: str, loc: tuple[str, ...], given: Any, family: str, message: str
) -> ValidationErrorDetail:
    if loc[:1] != ("params",):
        if loc == ("reasoning",):
            suggestion = (
                'Remove "reasoning" from the JSON: the reasoning belongs in the REASONING: section '
                "above the JSON: heading"
            )
        else:
            suggestion = f'Remove "{name}"; the JSON holds only "params"'
        return ValidationErrorDetail(
            field_path=path,
            error_type="unknown_field",
            given_value=given,
            allowed_values=list(TOP_LEVEL_FIELDS),
            suggestion=suggestion,
            message=message,
        )
    valid = ["strategy_type", *FAMILY_ALLOWED[family]]
    owners = families_of(name)
    if owners:
        return ValidationErrorDetail(
            field_path=path,
            error_type="wrong_family_field",
            given_value=given,
            allowed_values=valid,
            suggestion=(
                f"{name} belongs to the {_and(owners)} famil{'y' if len(owners) == 1 else 'ies'}; "
                f"strategy_type is {family}: remove it, or switch strategy_type to {_or(owners)}"
            ),
            message=message,
        )
    return ValidationErrorDetail(
        field_path=path,
        error_type="unknown_field",
        given_value=given,
        allowed_values=valid,
        suggestion=f'Remove "{name}"; the valid field names of {family} are listed above',
        message=message,
    )


def _literal_detail(
    path: str,
    name: str,
    given: Any,
    message: str,
    candidates: list[Any] | None = None,
    family: str = DEFAULT_FAMILY,
) -> ValidationErrorDetail:
    allowed = FAMILY_ALLOWED[family][name]
    numeric = all(_is_number(value) for value in allowed)
    best = closest_allowed(name, given, candidates, family=family)
    elsewhere = [
        other
        for other in families_of(name)
        if other != family and _same_value(given, FAMILY_ALLOWED[other][name])
    ]
    note = f"; {show(given)} is a {_or(elsewhere)} value" if elsewhere else ""
    if (numeric and _is_number(given)) or (not numeric and isinstance(given, str)):
        return ValidationErrorDetail(
            field_path=path,
            error_type="invalid_value",
            given_value=given,
            allowed_values=allowed,
            suggestion=f"Use {show(best)} (closest valid value{f' for {family}' if note else ''}{note})",
            message=message,
        )
    # right value, wrong JSON type: "10%", "0.1", true, null, a list ...
    if numeric:
        expected = "float" if any(isinstance(value, float) for value in allowed) else "int"
    else:
        expected = "string"
    return ValidationErrorDetail(
        field_path=path,
        error_type="type_error",
        given_value=given,
        allowed_values=allowed,
        expected_type=expected,
        suggestion=f"Use {show(best)} instead of {show(given)}",
        message=message,
    )


def _same_value(given: Any, allowed: list[Any]) -> bool:
    return any(type(given) is type(value) and given == value for value in allowed)


def closest_allowed(
    field: str, given: Any, candidates: list[Any] | None = None, *, family: str = DEFAULT_FAMILY
) -> Any:
    """The allowed value of `field` (of `family`) nearest to what was given.

    Numbers: smallest distance, ties to the lower value; a fraction field given a percentage
    (stop_loss 10 or "10%") is read as 0.10. Strings: case-insensitive match, then prefix
    ("weekly" -> "W"), then the most similar spelling. Anything else: the middle allowed value.
    `candidates` narrows the allowed values (e.g. to those consistent with another field).
    """
    allowed = candidates or FAMILY_ALLOWED[family][field]
    if all(_is_number(value) for value in allowed):
        number = _as_number(given)
        if number is None:
            return example_value(field, family, allowed)
        if all(0 < value < 1 for value in allowed) and 1 < abs(number) <= 100:
            number /= 100
        return min(allowed, key=lambda value: (round(abs(value - number), 9), value))
    if isinstance(given, list) and len(given) == 1:
        given = given[0]
    if not isinstance(given, str) or not given.strip():
        return example_value(field, family, allowed)
    text = given.strip().lower()
    for value in allowed:
        if str(value).lower() == text:
            return value
    for value in allowed:
        if text.startswith(str(value).lower()) or str(value).lower().startswith(text):
            return value
    return max(allowed, key=lambda value: difflib.SequenceMatcher(None, text, str(value).lower()).ratio())


def example_value(field: str, family: str = DEFAULT_FAMILY, allowed: list[Any] | None = None) -> Any:
    """A valid value to name in a suggestion: the middle of the allowed list."""
    values = allowed or FAMILY_ALLOWED[family][field]
    return values[(len(values) - 1) // 2]


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


def _missing_detail(
    path: str, name: str, loc: tuple[str, ...], family: str, siblings: dict[str, Any]
) -> ValidationErrorDetail:
    if len(loc) == 2 and loc[0] == "params" and name in FAMILY_ALLOWED[family]:
        allowed = FAMILY_ALLOWED[family][name]
        example = example_value(name, family, consistent_candidates(name, siblings, family))
        return ValidationErrorDetail(
            field_path=path,
            error_type="missing_field",
            given_value=None,
            allowed_values=allowed,
            suggestion=f'Add "{name}": {show(example)} (or another allowed value)',
            message="Field required",
        )
    if loc == ("reasoning",):
        suggestion = f"Write {_reasoning_bounds_text()} characters under the REASONING: heading"
    elif loc == ("params",):
        suggestion = 'Add "params": an object with "strategy_type" and the fields of that family'
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


def length_detail(path: str, kind: str, given: Any, message: str) -> ValidationErrorDetail:
    """A text outside the reasoning's bounds (string_too_short / string_too_long), with both bounds."""
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


def _consistency_detail(path: str, given: Any, message: str, family: str) -> ValidationErrorDetail:
    """A family's model validator refused the set: name the rule and a fix from the given values."""
    values = given if isinstance(given, dict) else {}
    rule = broken_rule(family, values)
    if rule is None:
        return ValidationErrorDetail(
            field_path=path,
            error_type="inconsistent_values",
            given_value=given,
            suggestion=message,
            message=message,
        )
    return ValidationErrorDetail(
        field_path=path,
        error_type="inconsistent_values",
        given_value={name: values[name] for name in rule.fields},
        suggestion="Use " + ", or ".join(rule.fixes(values, show)) + f" ({rule.why})",
        message=message,
    )


def _object_type_detail(path: str, given: Any, message: str) -> ValidationErrorDetail:
    if path == "params":
        suggestion = 'Give "params" as an object with "strategy_type" and the fields of that family'
    else:
        suggestion = 'Write the JSON section as one object {"params": {...}}'
    return ValidationErrorDetail(
        field_path=path,
        error_type="type_error",
        given_value=given,
        expected_type="object",
        suggestion=suggestion,
        message=message,
    )
