"""The one structured-output path: extraction, bounded schemas, validation feedback."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from stockdesk.llm_platform.application.structured_output import (
    bounded_schema,
    extract_json_text,
    parse_structured,
    repair_prompt,
    strip_thinking,
)
from stockdesk.shared.errors import LLMOutputParseError


class Verdict(BaseModel):
    action: Literal["BUY", "SELL", "HOLD"]
    confidence: float = Field(ge=0, le=1)
    reasons: list[str]
    nested: dict[str, list[str]] = Field(default_factory=dict)


GOOD = {"action": "HOLD", "confidence": 0.6, "reasons": ["PE 处于历史 5% 分位"]}


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps(GOOD),
        "```json\n" + json.dumps(GOOD) + "\n```",
        "Sure! Here is the verdict:\n" + json.dumps(GOOD) + "\nHope this helps.",
        "<think>the PE is {low} so maybe BUY</think>\n" + json.dumps(GOOD),
        "<think>unterminated reasoning {" + "\n```\n" + json.dumps(GOOD) + "\n```",
        "prefix {not json} then " + json.dumps(GOOD),
    ],
    ids=["plain", "fenced", "prose", "think", "think-unterminated-then-fence", "broken-brace-first"],
)
def test_extraction_variants_give_the_same_object(raw: str) -> None:
    assert parse_structured(raw, Verdict).model_dump(exclude={"nested"}) == GOOD


def test_strip_thinking_removes_reasoning_blocks() -> None:
    assert strip_thinking('<think>a\nb</think> {"x": 1}') == '{"x": 1}'
    assert strip_thinking("<THINK>never closed") == "never closed"


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.one_of(st.integers(), st.text(max_size=20), st.booleans(), st.none()),
        min_size=1,
        max_size=5,
    ),
    st.text(alphabet=st.characters(blacklist_characters='{}[]"\\`<'), max_size=40),
)
def test_any_object_is_found_inside_surrounding_prose(obj: dict, prose: str) -> None:
    text = f"{prose}\n{json.dumps(obj, ensure_ascii=False)}\n{prose}"
    assert json.loads(extract_json_text(text)) == obj


def test_no_json_raises_parse_error_carrying_raw_output() -> None:
    with pytest.raises(LLMOutputParseError) as info:
        parse_structured("I think you should buy.", Verdict)
    assert info.value.raw_output == "I think you should buy."
    assert info.value.http_status == 422


def test_truncated_output_is_reported_as_such() -> None:
    with pytest.raises(LLMOutputParseError) as info:
        parse_structured(json.dumps(GOOD), Verdict, finish_reason="length")
    assert "truncated" in info.value.errors[0]


def test_validation_feedback_names_field_given_value_and_allowed_values() -> None:
    bad = dict(GOOD, action="STRONG_BUY", confidence=1.7)
    with pytest.raises(LLMOutputParseError) as info:
        parse_structured(json.dumps(bad), Verdict)
    errors = info.value.errors
    action_line = next(line for line in errors if "`action`" in line)
    assert '"STRONG_BUY"' in action_line and "'BUY'" in action_line and "'HOLD'" in action_line
    assert any("`confidence`" in line and "1.7" in line for line in errors)
    prompt = repair_prompt(errors)
    assert "`action`" in prompt and "one JSON object only" in prompt


def test_bounded_schema_caps_every_list_and_free_string() -> None:
    schema = bounded_schema(Verdict, max_items=7, max_length=300)
    props = schema["properties"]
    assert props["reasons"]["maxItems"] == 7
    assert props["reasons"]["items"]["maxLength"] == 300
    assert props["nested"]["additionalProperties"]["maxItems"] == 7
    assert "maxLength" not in props["action"]  # enums are already bounded
    # an explicit bound is kept
    explicit = bounded_schema({"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 2})
    assert explicit["maxItems"] == 2 and explicit["items"]["maxLength"] == 5
