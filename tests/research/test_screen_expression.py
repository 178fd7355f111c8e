"""`--where` expressions: what the grammar accepts, what it refuses (one line each), NaN compares false,
and the vectorised mask equals a row-by-row evaluation of random expressions."""

from __future__ import annotations

import math
import operator

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.research.application.screen.expression import parse_filter
from stockdesk.research.domain.dtos.screen import FIELD_NAMES
from stockdesk.shared.errors import BadRequestException

FIELDS = ("a", "b", "c")
FRAME = pd.DataFrame(
    {
        "a": [1.0, 2.0, np.nan, 4.0, -1.0, 0.0],
        "b": [2.0, 2.0, 3.0, np.nan, 5.0, 0.0],
        "c": [0.5, 10.0, 1.0, 1.0, np.nan, -2.0],
    }
)


def mask(text: str) -> list[bool]:
    return list(parse_filter(text, FIELDS).mask(FRAME))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a < b", [True, False, False, False, True, False]),
        ("a <= b", [True, True, False, False, True, True]),
        ("a == b", [False, True, False, False, False, True]),
        ("a != b", [True, False, False, False, True, False]),  # NaN != x is false too
        ("a < b < 4", [True, False, False, False, False, False]),  # chained: a < b and b < 4
        ("a > 1 or c > 5", [False, True, False, True, False, False]),
        ("a >= 0 and not c < 1", [False, True, False, True, False, False]),
        ("not a > 1", [True, False, True, False, True, True]),  # `not` inverts: NaN rows pass
        ("(a + b) * 2 > 7", [False, True, False, False, True, False]),  # 6, 8, -, -, 8, 0
        ("-a > 0", [False, False, False, False, True, False]),
        ("a / b >= 1", [False, True, False, False, False, False]),  # 0/0 is NaN: false
        ("b - c * 2 == 1", [True, False, True, False, False, False]),  # 2-1, 2-20, 3-2, -, -, 0+4
        ("1 < 2", [True] * 6),
        ("a > 1e-9", [True, True, False, True, False, False]),
    ],
)
def test_accepted_expressions_give_the_hand_computed_mask(text: str, expected: list[bool]) -> None:
    assert mask(text) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("abs(a) > 1", "a function call"),
        ("a.real > 1", "attribute access"),
        ("a[0] > 1", "indexing"),
        ("a > 'x'", "a string"),
        ("a > True", "True/False"),
        ("a > None", "None"),
        ("(lambda: 1)() > 0", "a function call"),
        ("(lambda: 1) > 0", "a lambda"),
        ("a ** 2 > 1", "'**'"),
        ("a % 2 > 1", "'%'"),
        ("a >> 2 > 1", "'>>'"),
        ("(a > 1) & (b > 1)", "'&'"),
        ("a is b", "'is / is not'"),
        ("a in b", "'in / not in'"),
        ("(x := 1) > 0", "an assignment"),
        ("[a] > 1", "a list"),
        ("a if b else c", "an if-expression"),
        ("~a > 1", "'~'"),
        ("a + 1", "a number, not a condition"),
        ("a and b", "must be a condition"),
        ("(a > 1) + 1 > 0", "must be a number"),
        ("a >", "not a valid expression"),
        ("a > 1; import os", "not a valid expression"),
        ("__import__('os').system('true') > 0", "a function call"),
        ("", "empty"),
    ],
)
def test_everything_else_is_refused_with_one_line(text: str, words: str) -> None:
    with pytest.raises(BadRequestException) as caught:
        parse_filter(text, FIELDS)
    message = caught.value.message
    assert words in message and message.startswith("--where: ") and "\n" not in message


def test_an_unknown_field_lists_the_known_ones() -> None:
    with pytest.raises(BadRequestException) as caught:
        parse_filter("roe > 15 and pe_percentil < 20", FIELD_NAMES)
    message = caught.value.message
    assert "unknown field 'pe_percentil'" in message and "pe_percentile" in message and "roe" in message
    assert caught.value.code == "UNKNOWN_FIELD" and "\n" not in message


def test_the_issues_example_parses_over_the_screen_fields() -> None:
    condition = parse_filter("pe_pct < 0.2 and roe > 15 and ma20 > ma60", FIELD_NAMES)
    assert condition.fields == ("ma20", "ma60", "pe_pct", "roe")


# property: the mask equals evaluating the same tree row by row ------------------------------------

numbers = st.one_of(st.integers(0, 50), st.sampled_from([0.0, 0.5, 2.5, 1e-3]))
values = st.recursive(
    st.one_of(st.sampled_from(FIELDS).map(lambda f: ("field", f)), numbers.map(lambda n: ("number", n))),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/"]), inner, inner),
        st.tuples(st.just("neg"), inner),
    ),
    max_leaves=6,
)
comparisons = st.tuples(
    st.just("compare"),
    values,
    st.lists(st.tuples(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), values), min_size=1, max_size=3),
)
conditions = st.recursive(
    comparisons,
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["and", "or"]), inner, inner), st.tuples(st.just("not"), inner)
    ),
    max_leaves=4,
)
COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def render(node: tuple) -> str:
    kind = node[0]
    if kind == "field":
        return node[1]
    if kind == "number":
        return repr(node[1])
    if kind == "neg":
        return f"-({render(node[1])})"
    if kind in ARITHMETIC:
        return f"({render(node[1])} {kind} {render(node[2])})"
    if kind == "compare":
        return "(" + render(node[1]) + "".join(f" {op} {render(v)}" for op, v in node[2]) + ")"
    if kind == "not":
        return f"(not {render(node[1])})"
    return f"({render(node[1])} {kind} {render(node[2])})"


def evaluate(node: tuple, row: dict[str, np.float64]) -> np.float64 | bool:
    """One row, IEEE float64 scalars (the same arithmetic numpy applies per element)."""
    kind = node[0]
    if kind == "field":
        return row[node[1]]
    if kind == "number":
        return np.float64(node[1])
    if kind == "neg":
        return -evaluate(node[1], row)
    if kind in ARITHMETIC:
        return ARITHMETIC[kind](evaluate(node[1], row), evaluate(node[2], row))
    if kind == "compare":
        operands = [evaluate(node[1], row), *(evaluate(v, row) for _, v in node[2])]
        ops = [op for op, _ in node[2]]
        return all(
            not math.isnan(left) and not math.isnan(right) and COMPARE[op](left, right)
            for op, left, right in zip(ops, operands, operands[1:], strict=False)
        )
    if kind == "not":
        return not evaluate(node[1], row)
    left, right = evaluate(node[1], row), evaluate(node[2], row)
    return (left and right) if kind == "and" else (left or right)


@settings(max_examples=300, deadline=None)
@given(conditions)
def test_the_mask_equals_a_row_by_row_evaluation(tree: tuple) -> None:
    text = render(tree)
    with np.errstate(all="ignore"):
        expected = [
            bool(evaluate(tree, {f: np.float64(v) for f, v in row.items()}))
            for row in FRAME.to_dict(orient="records")
        ]
    assert mask(text) == expected, text


# size: refused before the parser or the compiler could recurse too deeply ---------------------------

SIZE_REFUSALS = {
    "3000-nots": ("not " * 3000 + "a > 1", "WHERE_TOO_LONG", "12,005 characters; at most 1,000"),
    "10000-minuses": ("-" * 10000 + "a > 1", "WHERE_TOO_LONG", "10,005 characters; at most 1,000"),
    "12000-term-sum": ("+".join(["a"] * 12000) + " > 1", "WHERE_TOO_LONG", "at most 1,000"),
    "240-nots": ("not " * 240 + "a > 1", "WHERE_TOO_COMPLEX", "more than 200 parts"),
    "250-parentheses": ("(" * 250 + "a" + ")" * 250 + " > 1", "WHERE_TOO_COMPLEX", "more than 200 parts"),
    "60-minuses": ("-" * 60 + "a > 1", "WHERE_TOO_COMPLEX", "nested more than 50 levels"),
    "60-term-sum": ("+".join(["a"] * 60) + " > 1", "WHERE_TOO_COMPLEX", "nested more than 50 levels"),
}


@pytest.mark.parametrize(("text", "code", "words"), SIZE_REFUSALS.values(), ids=SIZE_REFUSALS.keys())
def test_too_long_or_too_deep_is_refused_with_its_own_code(text: str, code: str, words: str) -> None:
    with pytest.raises(BadRequestException) as caught:
        parse_filter(text, FIELDS)
    assert caught.value.code == code and caught.value.http_status == 400
    assert words in caught.value.message and "\n" not in caught.value.message


def test_expressions_up_to_the_limits_still_screen() -> None:
    """49 signs and a 40-term sum are within MAX_DEPTH: computed as written."""
    assert mask("-" * 48 + "a > 0") == mask("a > 0")  # an even count of minuses
    assert mask("+".join(["a"] * 40) + " > 40") == [False, True, False, True, False, False]
