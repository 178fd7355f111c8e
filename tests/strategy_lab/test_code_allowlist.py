"""The code check is an allowlist of the template's own vocabulary: every valid parameter set passes,
the lists hold nothing the template does not use, and anything else is rejected (issue 17)."""

from __future__ import annotations

import ast
import keyword
from dataclasses import asdict, fields
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stockdesk.strategy_lab.application.code_check import ALLOWED, CodeUsage, check_strategy_code, code_usage
from stockdesk.strategy_lab.domain.errors import UnsafeStrategyCodeError
from stockdesk.strategy_lab.domain.params import ALLOWED_VALUES, PARAM_FIELDS, MomentumStrategyParams
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate
from tests.strategy_lab.support import VALID

TEMPLATE = MomentumTemplate()
VALID_PARAMS = st.fixed_dictionaries(
    {name: st.sampled_from(ALLOWED_VALUES[name]) for name in PARAM_FIELDS}
).filter(lambda p: p["momentum_period"] <= p["ma_periods"])
IDENTIFIERS = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,14}\Z").filter(lambda s: not keyword.iskeyword(s))
# The reviewer's three escapes, each of which passed the old blocklist.
ESCAPES = {
    "environment": "leak = dict(pd.io.common.os.environ)",
    "to_json": "pd.DataFrame({'a': [1]}).to_json('/tmp/pwned.json')",
    "open_memmap": "import numpy as np\nnp.lib.format.open_memmap('/tmp/pwned.npy', mode='w+', shape=(4,))",
}


def render(values: dict) -> str:
    return TEMPLATE.render(MomentumStrategyParams(**values))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(VALID_PARAMS)
def test_every_valid_parameter_set_renders_code_that_passes(values: dict) -> None:
    check_strategy_code(render(values))


def test_the_allowlist_is_exactly_what_the_template_uses() -> None:
    """Over every branch of the template (catalyst type x resample): no entry is unused, none missing."""
    used = CodeUsage()
    for catalyst, resample in product(ALLOWED_VALUES["catalyst_type"], ALLOWED_VALUES["resample"]):
        code = render({**VALID, "catalyst_type": catalyst, "resample": resample})
        for kind, values in asdict(code_usage(code)).items():
            getattr(used, kind).update(values)
    for kind in (f.name for f in fields(CodeUsage)):
        assert getattr(used, kind) == getattr(ALLOWED, kind), kind


@pytest.mark.parametrize("escape", ESCAPES.values(), ids=ESCAPES.keys())
@pytest.mark.parametrize("where", ["module", "function"])
def test_the_reviewers_escapes_are_rejected(escape: str, where: str) -> None:
    code = render(VALID)
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
