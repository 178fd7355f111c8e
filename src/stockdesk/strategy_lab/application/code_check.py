"""Allowlist check of a rendered strategy module: exactly the constructs the template uses, nothing else.

The code always comes from our own template, so a failure here is a template bug. A blocklist missed
`pd.io.common.os.environ`, `DataFrame.to_json(path)` and `np.lib.format.open_memmap`; an allowlist
cannot miss what it never lists. The sets below are the template's own vocabulary, written out by
hand; tests prove every valid parameter set of every family passes and that the sets hold nothing
the templates do not use. Passing the check is necessary, not sufficient: the code still runs in the sandbox.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from stockdesk.strategy_lab.domain.errors import UnsafeStrategyCodeError

REQUIRED_FUNCTION = "generate_weights"
REQUIRED_CONSTANTS = ("STOP_LOSS", "PARAMS")

# (module, imported name, alias) of every import statement the template writes.
ALLOWED_IMPORTS = frozenset({("__future__", "annotations", None), ("pandas", None, "pd")})
ALLOWED_NODE_TYPES = frozenset(
    {
        *("Module", "Expr", "Assign", "FunctionDef", "arguments", "arg", "Return", "If", "Import"),
        *("ImportFrom", "alias", "Name", "Load", "Store", "Attribute", "Subscript", "Call", "keyword"),
        *("Constant", "Dict", "List", "Tuple", "BinOp", "Add", "Sub", "Mult", "BitAnd", "BoolOp", "Or"),
        *("Compare", "Eq", "Gt", "GtE", "Lt", "LtE"),
        *("UnaryOp", "USub", "Div", "Pow", "BitOr"),  # mean reversion's -ENTRY_Z, |; volatility's / and **
    }
)
# Names read, assigned or defined (constants, functions, parameters, locals, the builtin `float`).
ALLOWED_NAMES = frozenset(
    {
        *("MOMENTUM_PERIOD", "MA_PERIODS", "CATALYST_TYPE", "CATALYST_LOOKBACK", "N_STOCKS"),
        *("STOP_LOSS", "RESAMPLE", "RESAMPLE_OFFSET", "CATALYST_COLUMN", "PARAMS"),
        *("generate_weights", "catalyst_flags", "decision_dates", "close", "fundamentals", "index"),
        *("returns", "momentum", "trend", "eligible", "dates", "score", "chosen", "count", "off"),
        *("columns", "reports", "short", "long", "position", "known", "flags", "days"),
        *("week", "first", "last", "month", "last_position", "pd", "float"),
        # the mean-reversion and volatility templates
        *("STRATEGY_TYPE", "LOOKBACK", "ENTRY_Z", "EXIT_Z", "TREND_MA", "VOL_PERIOD", "MAX_VOL"),
        *("TARGET_VOL", "TRADING_DAYS", "std", "z", "entry", "leave", "held", "vol", "exposure"),
        *("CATALYST_QUARTERS", "quarter_mean", "latest", "inside", "grouped", "window", "least", "int"),
    }
)
# Attributes read without being called.
ALLOWED_ATTRIBUTES = frozenset(
    {
        *("DataFrame", "DatetimeIndex", "Series", "columns", "day_of_week", "empty", "index", "loc"),
        *("month", "year"),
    }
)
# Call targets: a called name, or the attribute named by a method call.
ALLOWED_CALLS = frozenset(
    {
        *("len", "catalyst_flags", "decision_dates", "DataFrame", "DatetimeIndex", "Series"),
        *("to_timedelta", "assign", "astype", "clip", "cumcount", "div", "drop_duplicates"),
        *("dropna", "ffill", "fillna", "groupby", "isin", "max", "mean", "min"),
        *("normalize", "notna", "pct_change", "rank", "reindex", "rolling"),
        *("searchsorted", "sort_index", "sort_values", "sum", "to_numpy", "transform", "where"),
        *("std", "isna", "mul"),
        *("quarter_mean", "Timedelta", "merge", "count", "unstack"),
    }
)
ALLOWED_KEYWORDS = frozenset(
    {
        *("ascending", "axis", "columns", "day", "fill_method", "index", "keep", "method"),
        *("min_periods", "side", "subset", "unit", "upper", "on", "days"),
    }
)
# String constants outside docstrings: column names, pandas options, parameter names and values.
ALLOWED_STRINGS = frozenset(
    {
        *("symbol", "end_date", "ann_date", "revenue", "profit", "day", "first", "last", "right"),
        *("out", "max"),
        *("size", "D", "W", "M", "earnings", "momentum_period", "ma_periods", "catalyst_type"),
        *("catalyst_lookback", "n_stocks", "stop_loss", "resample", "resample_offset"),
        *("strategy_type", "mean_reversion", "lookback", "entry_z", "exit_z", "trend_ma"),
        *("momentum", "volatility", "vol_period", "max_vol", "target_vol"),
    }
)
NUMBER_TYPES = (bool, int, float, type(None))


@dataclass
class CodeUsage:
    """What a module uses, by allowlist category (collected the same way the check walks it)."""

    node_types: set[str] = field(default_factory=set)
    imports: set[tuple[str | None, str | None, str | None]] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)
    keywords: set[str] = field(default_factory=set)
    strings: set[str] = field(default_factory=set)


ALLOWED = CodeUsage(
    node_types=set(ALLOWED_NODE_TYPES),
    imports=set(ALLOWED_IMPORTS),
    names=set(ALLOWED_NAMES),
    attributes=set(ALLOWED_ATTRIBUTES),
    calls=set(ALLOWED_CALLS),
    keywords=set(ALLOWED_KEYWORDS),
    strings=set(ALLOWED_STRINGS),
)
Use = tuple[ast.AST, str, object]  # node, CodeUsage field, value


def check_strategy_code(code: str) -> None:
    """Raise UnsafeStrategyCodeError (one-line reason) unless `code` uses only the template's constructs."""
    tree = _parse(code)
    defined = _module_level_names(tree)
    if defined.get(REQUIRED_FUNCTION) != "function":
        raise UnsafeStrategyCodeError(f"strategy code does not define a {REQUIRED_FUNCTION}() function")
    for constant in REQUIRED_CONSTANTS:
        if defined.get(constant) != "constant":
            raise UnsafeStrategyCodeError(f"strategy code does not define {constant} at module level")
    for node, kind, value in _uses(tree):
        if value not in getattr(ALLOWED, kind):
            line = getattr(node, "lineno", "?")
            raise UnsafeStrategyCodeError(
                f"strategy code rejected at line {line}: {_describe(kind, value)} is not used by the template"
            )


def code_usage(code: str) -> CodeUsage:
    """Everything `code` uses, per category (how the allowlist is compared with the template)."""
    usage = CodeUsage()
    for _, kind, value in _uses(_parse(code)):
        getattr(usage, kind).add(value)
    return usage


def _parse(code: str) -> ast.Module:
    try:
        tree = ast.parse(code, filename="<strategy>")
        compile(tree, "<strategy>", "exec")
    except SyntaxError as exc:
        raise UnsafeStrategyCodeError(
            f"strategy code does not compile: line {exc.lineno}: {exc.msg}"
        ) from exc
    return tree


def _uses(tree: ast.Module) -> Iterator[Use]:
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    call_targets = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        yield node, "node_types", type(node).__name__
        yield from _node_uses(node, node_is_call_target=id(node) in call_targets, docstrings=docstrings)


def _node_uses(node: ast.AST, *, node_is_call_target: bool, docstrings: set[int]) -> Iterator[Use]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield node, "imports", (alias.name, None, alias.asname)
    elif isinstance(node, ast.ImportFrom):
        for alias in node.names:
            module = node.module if node.level == 0 else "." * node.level + (node.module or "")
            yield node, "imports", (module, alias.name, alias.asname)
    elif isinstance(node, ast.Name):
        yield node, "calls" if node_is_call_target else "names", node.id
    elif isinstance(node, ast.Attribute):
        yield node, "calls" if node_is_call_target else "attributes", node.attr
    elif isinstance(node, ast.Call) and not isinstance(node.func, ast.Name | ast.Attribute):
        yield node, "calls", ast.unparse(node.func)
    elif isinstance(node, ast.FunctionDef):
        yield node, "names", node.name
        if node.decorator_list:
            yield node, "node_types", "decorator"
    elif isinstance(node, ast.arg):
        yield node, "names", node.arg
    elif isinstance(node, ast.keyword):
        yield node, "keywords", node.arg if node.arg is not None else "**"
    elif isinstance(node, ast.Constant) and id(node) not in docstrings:
        if isinstance(node.value, str):
            yield node, "strings", node.value
        elif not isinstance(node.value, NUMBER_TYPES):
            yield node, "node_types", f"{type(node.value).__name__} constant"


def _describe(kind: str, value: object) -> str:
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    labels = {
        "node_types": "syntax",
        "imports": "import (module, name, alias)",
        "names": "name",
        "attributes": "attribute",
        "calls": "call of",
        "keywords": "keyword argument",
        "strings": "string",
    }
    return f"{labels[kind]} {shown}"


def _module_level_names(tree: ast.Module) -> dict[str, str]:
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names[node.name] = "function"
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = "constant"
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            names[node.target.id] = "constant"
    return names
