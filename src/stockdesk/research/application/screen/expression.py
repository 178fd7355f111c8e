"""`--where` expressions: comparisons of screen fields, parsed with `ast`, evaluated over whole columns.

The language is a small part of Python's expression syntax; Python never evaluates it:
    condition := value op value [op value ...]         op: < <= > >= == != (chains: a < b < c)
               | condition and condition | condition or condition | not condition | (condition)
    value     := field name | int or float literal | value + - * / value | -value | +value | (value)
Field names must be known; anything else (calls, attributes, subscripts, strings, booleans, lambdas,
comprehensions...) is refused with a one-line error. A comparison with a missing figure (NaN) is
false, `!=` too; `not` inverts that (so `not roe > 5` keeps the symbols without an ROE).

Size: Python's parser and this compiler recurse once per level of nesting, so 3,000 `not`s or a
12,000-term sum ended in RecursionError or MemoryError. Before anything recurses, the text is held to
MAX_CHARS characters and MAX_PARTS tokens (counted by the tokenizer, which does not recurse; the
tree cannot be deeper than its tokens), and the parsed tree, walked with a stack, to MAX_DEPTH
levels: WHERE_TOO_LONG and WHERE_TOO_COMPLEX, one line each.
"""

from __future__ import annotations

import ast
import io
import operator
import tokenize
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stockdesk.shared.errors import BadRequestException

Columns = Mapping[str, np.ndarray]
Node = Callable[[Columns, int], np.ndarray]
NUMBER, CONDITION = "number", "condition"
HINT = "use field names, numbers, < <= > >= == !=, and/or/not, + - * / and parentheses"
_COMPARE: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
}  # fmt: skip
_ARITHMETIC: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
}  # fmt: skip
_REFUSED = {
    ast.Call: "a function call", ast.Attribute: "attribute access", ast.Subscript: "indexing",
    ast.Lambda: "a lambda", ast.IfExp: "an if-expression", ast.NamedExpr: "an assignment",
    ast.Dict: "a dict", ast.Set: "a set", ast.List: "a list", ast.Tuple: "a tuple",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.JoinedStr: "a string", ast.Starred: "unpacking", ast.Slice: "a slice",
}  # fmt: skip

_OPERATORS = {ast.Pow: "**", ast.Mod: "%", ast.FloorDiv: "//", ast.MatMult: "@", ast.LShift: "<<",
              ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}  # fmt: skip
_CONSTANTS = {bool: "True/False", str: "a string", bytes: "bytes", complex: "a complex number",
              type(None): "None", type(Ellipsis): "..."}  # fmt: skip


MAX_CHARS = 1000
MAX_PARTS = 200  # names, numbers, operators and parentheses
MAX_DEPTH = 50  # levels of the parsed tree: a 50-term sum, or 50 nested signs or `not`s
_LAYOUT = frozenset({tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT})


def _error(message: str, code: str = "BAD_WHERE") -> BadRequestException:
    return BadRequestException(f"--where: {message}", code=code)


@dataclass(frozen=True)
class Filter:
    """A parsed `--where`: the fields it reads and its mask over a frame of figures."""

    text: str
    fields: tuple[str, ...]
    _condition: Node

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        """True for the rows that satisfy the expression (one vectorised pass per node)."""
        columns = {name: frame[name].to_numpy(dtype="float64") for name in self.fields}
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(self._condition(columns, len(frame)), dtype=bool)


def parse_filter(text: str, fields: Collection[str]) -> Filter:
    """Parse `text` over the known `fields`; BadRequestException (one line) for anything else."""
    if not text.strip():
        raise _error("the expression is empty (e.g. roe > 15 and pe_ttm < 20)")
    _check_size(text.strip())
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise _error(f"not a valid expression ({exc.msg}, column {exc.offset}): {text.strip()}") from exc
    _check_depth(tree)
    compiler = _Compiler(frozenset(fields))
    try:
        kind, node = compiler.compile(tree.body)
    except RecursionError as exc:
        raise _error("the expression is nested too deeply") from exc
    if kind != CONDITION:
        raise _error(f"'{text.strip()}' is a number, not a condition (compare it: e.g. roe > 15)")
    return Filter(text.strip(), tuple(sorted(compiler.used)), node)


def _check_size(text: str) -> None:
    """WHERE_TOO_LONG beyond MAX_CHARS characters, WHERE_TOO_COMPLEX beyond MAX_PARTS tokens: both
    before the parser sees the text. A text the tokenizer refuses is left to the parser's message."""
    if len(text) > MAX_CHARS:
        raise _error(f"the expression has {len(text):,} characters; at most {MAX_CHARS:,}", "WHERE_TOO_LONG")
    parts = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            parts += token.type not in _LAYOUT
            if parts > MAX_PARTS:
                raise _error(
                    f"the expression has more than {MAX_PARTS} parts (names, numbers, operators)",
                    "WHERE_TOO_COMPLEX",
                )
    except (tokenize.TokenError, SyntaxError):
        return


def _check_depth(tree: ast.Expression) -> None:
    """WHERE_TOO_COMPLEX for a tree deeper than MAX_DEPTH expressions, found without recursing."""
    stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _error(
                f"the expression is nested more than {MAX_DEPTH} levels deep (signs, not, + - * /); "
                "split it or write it flatter",
                "WHERE_TOO_COMPLEX",
            )
        stack.extend(
            (child, depth + 1) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
        )


class _Compiler:
    """AST -> closures over column arrays, each node typed as a number or a condition."""

    def __init__(self, fields: frozenset[str]):
        self.fields = fields
        self.used: set[str] = set()

    def compile(self, node: ast.expr) -> tuple[str, Node]:
        if isinstance(node, ast.BoolOp):
            return CONDITION, self._bool_op(node)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node)
        if isinstance(node, ast.Compare):
            return CONDITION, self._compare(node)
        if isinstance(node, ast.BinOp):
            return NUMBER, self._arithmetic(node)
        if isinstance(node, ast.Name):
            return NUMBER, self._name(node.id)
        if isinstance(node, ast.Constant):
            return NUMBER, self._constant(node.value)
        what = _REFUSED.get(type(node), type(node).__name__)
        raise _error(f"{what} is not allowed ({HINT})")

    def _number(self, node: ast.expr, role: str) -> Node:
        kind, compiled = self.compile(node)
        if kind != NUMBER:
            raise _error(f"{role} must be a number, not a condition ({HINT})")
        return compiled

    def _condition(self, node: ast.expr, role: str) -> Node:
        kind, compiled = self.compile(node)
        if kind != CONDITION:
            raise _error(f"{role} must be a condition such as roe > 15, not a number")
        return compiled

    def _bool_op(self, node: ast.BoolOp) -> Node:
        word = "and" if isinstance(node.op, ast.And) else "or"
        parts = [self._condition(value, f"each side of '{word}'") for value in node.values]
        combine = np.logical_and if word == "and" else np.logical_or

        def evaluate(columns: Columns, size: int) -> np.ndarray:
            result = parts[0](columns, size)
            for part in parts[1:]:
                result = combine(result, part(columns, size))
            return result

        return evaluate

    def _unary(self, node: ast.UnaryOp) -> tuple[str, Node]:
        if isinstance(node.op, ast.Not):
            inner = self._condition(node.operand, "the operand of 'not'")
            return CONDITION, lambda columns, size: np.logical_not(inner(columns, size))
        if isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self._number(node.operand, "the operand of a sign")
            sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
            return NUMBER, lambda columns, size: sign * value(columns, size)
        raise _error(f"the operator '~' is not allowed ({HINT})")

    def _compare(self, node: ast.Compare) -> Node:
        operands = [self._number(n, "each side of a comparison") for n in (node.left, *node.comparators)]
        tests = []
        for op in node.ops:
            if type(op) not in _COMPARE:
                word = "is / is not" if isinstance(op, (ast.Is, ast.IsNot)) else "in / not in"
                raise _error(f"'{word}' is not allowed ({HINT})")
            tests.append(_COMPARE[type(op)])

        def evaluate(columns: Columns, size: int) -> np.ndarray:
            values = [operand(columns, size) for operand in operands]
            result = np.ones(size, dtype=bool)
            for test, left, right in zip(tests, values, values[1:], strict=False):
                known = ~np.isnan(left) & ~np.isnan(right)  # a missing figure compares false
                result &= known & test(left, right)
            return result

        return evaluate

    def _arithmetic(self, node: ast.BinOp) -> Node:
        if type(node.op) not in _ARITHMETIC:
            symbol = _OPERATORS.get(type(node.op), type(node.op).__name__)
            raise _error(f"'{symbol}' is not allowed ({HINT})")
        apply = _ARITHMETIC[type(node.op)]
        left = self._number(node.left, "each side of + - * /")
        right = self._number(node.right, "each side of + - * /")
        return lambda columns, size: apply(left(columns, size), right(columns, size))

    def _name(self, name: str) -> Node:
        if name not in self.fields:
            raise _error(
                f"unknown field '{name}'; known fields: {', '.join(sorted(self.fields))}", "UNKNOWN_FIELD"
            )
        self.used.add(name)
        return lambda columns, size: columns[name]

    def _constant(self, value: object) -> Node:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            what = _CONSTANTS.get(type(value), type(value).__name__)
            raise _error(f"{what} is not allowed; only numbers ({HINT})")
        try:
            number = float(value)
        except OverflowError as exc:
            raise _error(f"the number {value} is too large") from exc
        return lambda columns, size: np.full(size, number)
