"""Static check and restricted loading of a rendered strategy module.

The code comes from our own template, so a failure here is a template bug; the check is a second
line of defence (not a sandbox): only pandas/numpy imports, no dynamic code, no file access,
no dunder tricks, and the module must define what the backtest engine calls.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.strategy_lab.domain.errors import UnsafeStrategyCodeError

ALLOWED_IMPORTS = frozenset({"pandas", "numpy"})
FORBIDDEN_NAMES = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "open",
        "__import__",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "input",
        "breakpoint",
        "exit",
        "quit",
    }
)
# pandas/numpy entry points that read or write files, unpickle, evaluate strings or reach the OS.
FORBIDDEN_ATTRIBUTES = FORBIDDEN_NAMES | frozenset(
    {
        "query",
        "load",
        "loads",
        "save",
        "savez",
        "savetxt",
        "loadtxt",
        "genfromtxt",
        "fromfile",
        "tofile",
        "memmap",
        "ctypeslib",
        "system",
        "popen",
    }
)
FORBIDDEN_ATTRIBUTE_PREFIXES = ("read_", "to_pickle", "to_csv", "to_parquet", "to_sql", "to_excel", "to_hdf")
REQUIRED_FUNCTION = "generate_weights"
REQUIRED_CONSTANTS = ("STOP_LOSS", "PARAMS")

SAFE_BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in (
        "abs",
        "min",
        "max",
        "len",
        "range",
        "sum",
        "float",
        "int",
        "bool",
        "dict",
        "list",
        "tuple",
        "zip",
        "enumerate",
        "sorted",
        "round",
        "isinstance",
        "set",
        "str",
        "any",
        "all",
        "ValueError",
        "KeyError",
        "TypeError",
    )
}


@dataclass(frozen=True)
class StrategyProgram:
    """What a loaded strategy module offers the backtest engine."""

    generate_weights: Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]
    stop_loss: float
    params: dict[str, Any]


def check_strategy_code(code: str) -> None:
    """Raise UnsafeStrategyCodeError (one-line reason) unless `code` is a well-formed, harmless module."""
    try:
        tree = ast.parse(code, filename="<strategy>")
        compile(tree, "<strategy>", "exec")
    except SyntaxError as exc:
        raise UnsafeStrategyCodeError(
            f"strategy code does not compile: line {exc.lineno}: {exc.msg}"
        ) from exc
    for node in ast.walk(tree):
        reason = _forbidden(node)
        if reason:
            line = getattr(node, "lineno", "?")
            raise UnsafeStrategyCodeError(f"strategy code rejected at line {line}: {reason}")
    defined = _module_level_names(tree)
    if defined.get(REQUIRED_FUNCTION) != "function":
        raise UnsafeStrategyCodeError(f"strategy code does not define a {REQUIRED_FUNCTION}() function")
    for constant in REQUIRED_CONSTANTS:
        if defined.get(constant) != "constant":
            raise UnsafeStrategyCodeError(f"strategy code does not define {constant} at module level")


def _forbidden(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in ALLOWED_IMPORTS:
                return f"import of {alias.name!r} (only pandas and numpy)"
    elif isinstance(node, ast.ImportFrom):
        if node.module == "__future__" and node.level == 0:
            if any(alias.name != "annotations" for alias in node.names):
                return "only `from __future__ import annotations` is allowed"
        elif node.level != 0 or node.module not in ALLOWED_IMPORTS:
            return f"import from {node.module!r} (only pandas and numpy)"
        elif any(alias.name == "*" for alias in node.names):
            return "star import"
    elif isinstance(node, ast.Name):
        if node.id in FORBIDDEN_NAMES or node.id.startswith("__"):
            return f"use of {node.id!r}"
    elif isinstance(node, ast.Attribute):
        attr = node.attr
        if attr in FORBIDDEN_ATTRIBUTES or attr.startswith(("__", *FORBIDDEN_ATTRIBUTE_PREFIXES)):
            return f"attribute {attr!r}"
    elif isinstance(node, ast.Global | ast.Nonlocal):
        return "global/nonlocal statement"
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        if node.name.startswith("__"):
            return f"dunder definition {node.name!r}"
    elif isinstance(node, ast.arg) and node.arg.startswith("__"):
        return f"dunder argument {node.arg!r}"
    elif isinstance(node, ast.keyword) and node.arg and node.arg.startswith("__"):
        return f"dunder keyword {node.arg!r}"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "__" in node.value:
        return "string containing '__' (format-string attribute access)"
    return None


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


def _restricted_import(
    name: str,
    module_globals: Mapping[str, Any] | None = None,
    module_locals: Mapping[str, Any] | None = None,
    fromlist: Sequence[str] = (),
    level: int = 0,
) -> Any:
    """`__import__` of a strategy module: pandas, numpy and the `annotations` future only."""
    if level == 0 and name in ALLOWED_IMPORTS | {"__future__"}:
        return builtins.__import__(name, module_globals, module_locals, fromlist, level)
    raise ImportError(f"import of {name!r} is not allowed in strategy code")


def load_strategy(code: str) -> StrategyProgram:
    """Check, then run the module in a fresh namespace with a small builtins set."""
    check_strategy_code(code)
    namespace: dict[str, Any] = {
        "__builtins__": {**SAFE_BUILTINS, "__import__": _restricted_import},
        "__name__": "stockdesk_strategy",
    }
    try:
        exec(compile(code, "<strategy>", "exec"), namespace)
    except Exception as exc:
        raise UnsafeStrategyCodeError(f"strategy code failed to load: {type(exc).__name__}: {exc}") from exc
    function = namespace.get(REQUIRED_FUNCTION)
    stop_loss, params = namespace.get("STOP_LOSS"), namespace.get("PARAMS")
    if not callable(function):
        raise UnsafeStrategyCodeError(f"strategy {REQUIRED_FUNCTION} is not callable")
    if not isinstance(stop_loss, int | float | np.floating) or isinstance(stop_loss, bool):
        raise UnsafeStrategyCodeError(f"strategy STOP_LOSS is not a number: {stop_loss!r}")
    if not isinstance(params, dict):
        raise UnsafeStrategyCodeError(f"strategy PARAMS is not a dict: {type(params).__name__}")
    return StrategyProgram(generate_weights=function, stop_loss=float(stop_loss), params=dict(params))
