"""The strategist's answer in two sections (the spec's "Future Improvements" 3): REASONING, then JSON.

Free text inside a JSON string is where models break JSON (quotes, newlines, 500 characters of
prose); with the reasoning in its own section the JSON is short and mechanical. The layout:

    REASONING:
    <50-500 characters>

    JSON:
    {"params": {"strategy_type": "...", ...}}

Parsed strictly, with these tolerances (all decided here, and what the prompt shows):
- `<think>...</think>` blocks are removed first (llm_platform's strip_thinking).
- A heading is a line holding REASONING or JSON, any case, then a colon; markdown decoration is
  tolerated (`## JSON:`, `**REASONING:**`, `**Reasoning**:`), and the colon may be left out only
  when the heading word is alone on its line. Text may follow the colon on the same line.
- Both headings are required, REASONING first; the first REASONING heading and the first JSON
  heading after it count. Text before REASONING (a greeting) is ignored.
- The reasoning is everything between the two headings, stripped.
- The JSON section is one JSON value, optionally in a ``` or ```json fence, and nothing else:
  text after it is an error (a second answer or an afterthought would otherwise be dropped silently).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from stockdesk.llm_platform.application.structured_output import strip_thinking

_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*(?P<name>REASONING|JSON)[ \t]*(?P<colon>:)?"
    r"[ \t]*(?:\*\*|__)?[ \t]*(?(colon)|(?P<late>:)?)[ \t]*(?P<rest>.*?)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE = re.compile(r"\A```[A-Za-z]*[ \t]*\n(?P<body>.*?)\n?[ \t]*```(?P<after>.*)\Z", re.DOTALL)


class AnswerFormatError(ValueError):
    """The answer is not in the REASONING/JSON layout (`kind` format_error) or its JSON section does
    not parse (`kind` json_error)."""

    def __init__(self, kind: str, problem: str, given: str | None = None):
        super().__init__(problem)
        self.kind = kind
        self.problem = problem
        self.given = given  # the part of the answer at fault (the JSON section), when known


@dataclass(frozen=True)
class AnswerSections:
    reasoning: str
    json_text: str  # exactly one JSON value, fence removed


def split_sections(raw: str) -> AnswerSections:
    """The two sections of an answer; AnswerFormatError says what is wrong with the layout."""
    text = strip_thinking(raw)
    headings = [m for m in _HEADING.finditer(text) if m["colon"] or m["late"] or not m["rest"]]
    reasoning = next((m for m in headings if m["name"].upper() == "REASONING"), None)
    json_heading = next(
        (
            m
            for m in headings
            if m["name"].upper() == "JSON" and (reasoning is None or m.start() > reasoning.start())
        ),
        None,
    )
    if reasoning is None and json_heading is None:
        raise AnswerFormatError("format_error", 'no "REASONING:" and no "JSON:" heading')
    if reasoning is None:
        raise AnswerFormatError("format_error", 'no "REASONING:" heading before "JSON:"')
    if json_heading is None:
        if any(m["name"].upper() == "JSON" for m in headings):
            raise AnswerFormatError("format_error", '"JSON:" comes before "REASONING:"; REASONING goes first')
        raise AnswerFormatError("format_error", 'no "JSON:" heading after the reasoning')
    body = text[reasoning.start("rest") : json_heading.start()].strip()
    section = text[json_heading.start("rest") :].strip()
    return AnswerSections(reasoning=body, json_text=_json_value(section))


def _json_value(section: str) -> str:
    """The one JSON value of the JSON section (fence removed); nothing may follow it."""
    fenced = _FENCE.match(section)
    if fenced is not None:
        if fenced["after"].strip():
            raise AnswerFormatError("format_error", "text after the JSON section's closing ``` fence")
        section = fenced["body"].strip()
    if not section:
        raise AnswerFormatError("json_error", 'nothing after the "JSON:" heading')
    try:
        _, end = json.JSONDecoder().raw_decode(section)
    except json.JSONDecodeError as exc:
        problem = f"the JSON section is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise AnswerFormatError("json_error", problem, section) from exc
    if section[end:].strip():
        raise AnswerFormatError(
            "format_error", "text after the JSON object: the JSON section holds only the object"
        )
    return section[:end]
