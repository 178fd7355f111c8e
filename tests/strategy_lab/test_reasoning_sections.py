"""The answer's two sections (the spec's "Future Improvements" 3): REASONING, then JSON, parsed strictly
with the documented tolerances; every way of getting the layout wrong is fed back with the layout."""

from __future__ import annotations

import json

import pytest

from stockdesk.strategy_lab.application.answer_sections import AnswerFormatError, split_sections
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.feedback import LAYOUT
from stockdesk.strategy_lab.domain.params import validate_params
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from tests.strategy_lab.support import MEAN_REVERSION, REASONING, VOLATILITY

PARAMS = json.dumps({"params": MEAN_REVERSION})
PRETTY = json.dumps({"params": MEAN_REVERSION}, indent=2)


@pytest.fixture
def generator() -> TemplateCodeGenerator:
    return TemplateCodeGenerator(FamilyTemplates())


@pytest.mark.parametrize(
    "raw",
    [
        f"REASONING:\n{REASONING}\n\nJSON:\n{PARAMS}",
        f"REASONING:\n{REASONING}\n\nJSON:\n```json\n{PRETTY}\n```",
        f"REASONING:\n{REASONING}\n\nJSON:\n```\n{PARAMS}\n```\n",
        f"reasoning:\n{REASONING}\njson:\n{PARAMS}",
        f"REASONING: {REASONING}\nJSON: {PARAMS}",
        f"## REASONING:\n{REASONING}\n\n## JSON:\n{PARAMS}",
        f"**REASONING:**\n{REASONING}\n\n**JSON:**\n{PARAMS}",
        f"**Reasoning**:\n{REASONING}\n\n### JSON\n```json\n{PARAMS}\n```",
        f"Sure, here is my choice.\n\nREASONING:\n{REASONING}\n\nJSON:\n{PARAMS}",
        # headings and braces inside the thinking: without stripping it, its JSON section would be "{}" + text
        f"<think>\nREASONING:\nmaybe {{'n_stocks': 5}}\nJSON:\n{{}}\n</think>\n"
        f"REASONING:\n{REASONING}\nJSON:\n{PARAMS}",
    ],
    ids=[
        "plain",
        "json-fence-pretty",
        "bare-fence",
        "lower-case",
        "same-line",
        "markdown-headings",
        "bold-headings",
        "bold-word-then-colon-and-heading-without-colon",
        "greeting-first",
        "think-block-with-headings-and-braces",
    ],
)
def test_accepted_layouts(generator: TemplateCodeGenerator, raw: str) -> None:
    result = generator.generate(raw)
    assert result.success is True, result.errors
    assert result.reasoning == REASONING
    assert result.params == validate_params(MEAN_REVERSION)
    assert result.code == FamilyTemplates().render(result.params)


def test_the_reasoning_is_everything_between_the_headings_stripped() -> None:
    raw = f"REASONING:\n  Two lines of reasoning,\nthe second one here; JSON comes next.\n\nJSON:\n{PARAMS}"
    sections = split_sections(raw)
    assert sections.reasoning == "Two lines of reasoning,\nthe second one here; JSON comes next."
    assert json.loads(sections.json_text) == {"params": MEAN_REVERSION}


def test_a_line_starting_with_a_heading_word_but_no_colon_is_not_a_heading() -> None:
    """ "JSON output follows" inside the reasoning is prose: only "JSON:" or a lone "JSON" is a heading."""
    raw = (
        f"REASONING:\nReasoning about z-scores first.\nJSON output follows after this line.\nJSON:\n{PARAMS}"
    )
    sections = split_sections(raw)
    assert sections.reasoning == "Reasoning about z-scores first.\nJSON output follows after this line."


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (
            json.dumps({"reasoning": REASONING, "params": MEAN_REVERSION}),
            'no "REASONING:" and no "JSON:" heading',
        ),
        (f"Here is the JSON.\nJSON:\n{PARAMS}", 'no "REASONING:" heading before "JSON:"'),
        (f"REASONING:\n{REASONING}\n{PARAMS}", 'no "JSON:" heading after the reasoning'),
        (
            f"JSON:\n{PARAMS}\nREASONING:\n{REASONING}",
            '"JSON:" comes before "REASONING:"; REASONING goes first',
        ),
        (f"REASONING:\n{REASONING}\nJSON:\n{PARAMS}\nI hope this helps.", "text after the JSON object"),
        (
            f"REASONING:\n{REASONING}\nJSON:\n```json\n{PARAMS}\n```\nDone.",
            "text after the JSON section's closing",
        ),
        (f"REASONING:\n{REASONING}\nJSON:\n{PARAMS}\n{PARAMS}", "text after the JSON object"),
    ],
    ids=[
        "reasoning-inside-the-json",
        "no-reasoning",
        "no-json-heading",
        "wrong-order",
        "afterthought",
        "after-fence",
        "twice",
    ],
)
def test_layout_errors_show_the_exact_layout(
    generator: TemplateCodeGenerator, raw: str, problem: str
) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        split_sections(raw)
    assert caught.value.kind == "format_error" and caught.value.problem.startswith(problem)
    result = generator.generate(raw)
    assert result.success is False and result.params is None and result.code is None
    (error,) = result.errors
    assert (error.field_path, error.error_type, error.message) == ("$", "format_error", caught.value.problem)
    assert error.suggestion.endswith(LAYOUT)
    assert "REASONING:\n<50-500 characters" in result.get_feedback_prompt().replace("     ", "")


@pytest.mark.parametrize(
    ("raw", "given", "problem"),
    [
        (f"REASONING:\n{REASONING}\nJSON:\n", "REASONING:", 'nothing after the "JSON:" heading'),
        (f"REASONING:\n{REASONING}\nJSON:\n```json\n```", "REASONING:", 'nothing after the "JSON:" heading'),
        (
            f"REASONING:\n{REASONING}\nJSON:\n{{'params': {{}}}}",
            "{'params': {}}",
            "the JSON section is not valid JSON",
        ),
    ],
    ids=["empty", "empty-fence", "single-quotes"],
)
def test_json_section_errors(generator: TemplateCodeGenerator, raw: str, given: str, problem: str) -> None:
    (error,) = generator.generate(raw).errors
    assert (error.field_path, error.error_type) == ("$", "json_error")
    assert error.message.startswith(problem)
    assert error.given_value.startswith(given)  # the JSON section, or the answer when there is none


def test_a_reasoning_key_in_the_json_belongs_in_the_reasoning_section(
    generator: TemplateCodeGenerator,
) -> None:
    body = json.dumps({"reasoning": REASONING, "params": VOLATILITY})
    result = generator.generate(f"REASONING:\n{REASONING}\n\nJSON:\n{body}")
    (error,) = result.errors
    assert (error.field_path, error.error_type, error.given_value) == (
        "reasoning",
        "unknown_field",
        REASONING,
    )
    assert error.allowed_values == ["params"]
    assert error.suggestion == (
        'Remove "reasoning" from the JSON: the reasoning belongs in the REASONING: section '
        "above the JSON: heading"
    )


@pytest.mark.parametrize(("length", "kind"), [(49, "too_short"), (50, None), (500, None), (501, "too_long")])
def test_the_reasoning_length_bounds_are_the_requests(
    generator: TemplateCodeGenerator, length: int, kind: str | None
) -> None:
    result = generator.generate(f"REASONING:\n{'x' * length}\n\nJSON:\n{PARAMS}")
    if kind is None:
        assert result.success is True and result.reasoning == "x" * length
        return
    (error,) = result.errors
    assert (error.field_path, error.error_type) == ("reasoning", kind)
    assert (
        f"you wrote {length}" in error.suggestion and "50" in error.suggestion and "500" in error.suggestion
    )


def test_reasoning_and_json_errors_are_reported_together(generator: TemplateCodeGenerator) -> None:
    body = json.dumps({"params": {**MEAN_REVERSION, "lookback": 25}})
    result = generator.generate(f"REASONING:\nToo short.\nJSON:\n{body}")
    assert [(e.field_path, e.error_type) for e in result.errors] == [
        ("reasoning", "too_short"),
        ("params.lookback", "invalid_value"),
    ]
