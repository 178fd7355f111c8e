"""The code check is an allowlist of the templates' own vocabulary: every valid parameter set of every
family passes, the lists hold nothing the templates do not use, and anything else is rejected (issue 17)."""

from __future__ import annotations

import ast
import keyword
from dataclasses import asdict, fields
from itertools import product
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from stockdesk.strategy_lab.application.code_check import ALLOWED, CodeUsage, check_strategy_code, code_usage
from stockdesk.strategy_lab.domain.errors import UnsafeStrategyCodeError
from stockdesk.strategy_lab.domain.params import FAMILIES, FAMILY_ALLOWED, validate_params
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from tests.strategy_lab.support import FAMILY_PARAMS, VALID


def _valid(values: dict[str, Any]) -> bool:
    try:
        validate_params(values)
    except ValidationError:
        return False
    return True


TEMPLATE = FamilyTemplates()
VALID_PARAMS = st.one_of(
    *(
        st.fixed_dictionaries(
            {
                "strategy_type": st.just(family),
                **{name: st.sampled_from(values) for name, values in FAMILY_ALLOWED[family].items()},
            }
        ).filter(_valid)
        for family in FAMILIES
    )
)
IDENTIFIERS = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,14}\Z").filter(lambda s: not keyword.iskeyword(s))
# The reviewer's three escapes, each of which passed the old blocklist.
ESCAPES = {
    "environment": "leak = dict(pd.io.common.os.environ)",
    "to_json": "pd.DataFrame({'a': [1]}).to_json('/tmp/pwned.json')",
    "open_memmap": "import numpy as np\nnp.lib.format.open_memmap('/tmp/pwned.npy', mode='w+', shape=(4,))",
}
# Every branch of every template: momentum's catalyst type x schedule, the others' trend filter x schedule.
BRANCHES = [
    *({**VALID, "catalyst_type": c, "resample": r} for c, r in product(["revenue", "earnings"], ["W", "M"])),
    *(
        {**FAMILY_PARAMS[family], "trend_ma": trend, "resample": resample}
        for family in ("mean_reversion", "volatility")
        for trend, resample in product([0, 120], FAMILY_ALLOWED[family]["resample"])
    ),
]


def render(values: dict) -> str:
    return TEMPLATE.render(validate_params(values))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(VALID_PARAMS)
def test_every_valid_parameter_set_renders_code_that_passes(values: dict) -> None:
    code = render(values)
    check_strategy_code(code)  # raises UnsafeStrategyCodeError on anything outside the allowlist
    usage = code_usage(code)
    for kind in (f.name for f in fields(CodeUsage)):  # the same rule, stated as an assertion
        assert getattr(usage, kind) <= getattr(ALLOWED, kind), kind
    declared = {  # the module declares the very parameters it was rendered from
        ast.literal_eval(k): v.id
        for node in ast.parse(code).body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PARAMS"
        for k, v in zip(node.value.keys, node.value.values, strict=True)  # type: ignore[attr-defined]
    }
    assert set(declared) == set(validate_params(values).model_dump())


def test_the_allowlist_is_exactly_what_the_templates_use() -> None:
    """Over every branch of every family's template: no entry is unused, none missing."""
    used = CodeUsage()
    for values in BRANCHES:
        for kind, found in asdict(code_usage(render(values))).items():
            getattr(used, kind).update(found)
    assert {validate_params(values).strategy_type for values in BRANCHES} == set(FAMILIES)
    for kind in (f.name for f in fields(CodeUsage)):
        assert getattr(used, kind) == getattr(ALLOWED, kind), kind


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("escape", ESCAPES.values(), ids=ESCAPES.keys())
@pytest.mark.parametrize("where", ["module", "function"])
def test_the_reviewers_escapes_are_rejected(escape: str, where: str, family: str) -> None:
    code = render(FAMILY_PARAMS[family])
    if where == "module":
        code += "\n" + escape + "\n"
    else:
        marker = "    close = close.sort_index()\n"
        indented = "".join(f"    {line}\n" for line in escape.splitlines())
        code = code.replace(marker, indented + marker, 1)
    with pytest.raises(UnsafeStrategyCodeError, match="is not used by the template"):
        check_strategy_code(code)


def occurrences(tree: ast.Module, kind: str) -> list[ast.AST]:
    """The nodes carrying a value of one allowlist category."""
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    carriers = {
        "names": lambda n: isinstance(n, ast.Name | ast.arg | ast.FunctionDef) and id(n) not in calls,
        "attributes": lambda n: isinstance(n, ast.Attribute) and id(n) not in calls,
        "calls": lambda n: id(n) in calls,
        "keywords": lambda n: isinstance(n, ast.keyword),
        "strings": lambda n: (
            isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
        ),
    }
    return [node for node in ast.walk(tree) if carriers[kind](node)]


def rename(node: ast.AST, new: str) -> None:
    for attribute in ("id", "arg", "name", "attr", "value"):
        if hasattr(node, attribute) and isinstance(getattr(node, attribute), str):
            setattr(node, attribute, new)
            return
    raise AssertionError(f"cannot rename {ast.dump(node)}")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    values=VALID_PARAMS,
    kind=st.sampled_from(["names", "attributes", "calls", "keywords", "strings"]),
    position=st.integers(min_value=0, max_value=10_000),
    new=IDENTIFIERS,
)
def test_any_single_word_outside_the_allowlist_is_rejected(
    values: dict, kind: str, position: int, new: str
) -> None:
    """Swap one name, attribute, call target, keyword or string for a word the allowlist lacks."""
    tree = ast.parse(render(values))
    check_strategy_code(ast.unparse(tree))  # control: the unchanged module passes
    targets = occurrences(tree, kind)
    assert targets, kind
    if new in getattr(ALLOWED, kind):
        new += "_x"
    rename(targets[position % len(targets)], new)
    with pytest.raises(UnsafeStrategyCodeError):
        check_strategy_code(ast.unparse(tree))
