"""The abstract classes in `src/` are the ones docs/architecture.md lists, with why each exists, and
fewer than LIMIT: a new port is added on purpose (with its second implementation, its test double or
the store rule that needs it), not by habit. (27 since the portfolio's and the paper book's stores,
`IPortfolioStore` and `IPaperStore`; 28 since the scheduling store `IScheduleStore`: their applications
may not import the database.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "stockdesk"
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Abstract classes, and why each exists"
ABSTRACT_BASES = {"ABC", "Protocol"}
LIMIT = 28


def abstract_classes(root: Path) -> set[str]:
    """Classes whose own bases name ABC or Protocol (subscripted or not)."""
    found: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(b).split("[")[0].split(".")[-1] for b in node.bases}
                if bases & ABSTRACT_BASES:
                    found.add(node.name)
    return found


def listed(doc: str) -> set[str]:
    """The class names in backticks of the doc's abstract-class section, up to the next section."""
    section = doc.split(SECTION, 1)[1].split("\n## ", 1)[0]
    names = set(re.findall(r"`([A-Z]\w*)`", section))
    return {name for name in names if not name.startswith("Sql")}  # the store classes are named too


def test_the_doc_lists_every_abstract_class_and_there_are_fewer_than_the_limit() -> None:
    found = abstract_classes(SRC)
    named = listed(DOC.read_text(encoding="utf-8"))
    assert found - named == set(), "abstract classes the doc does not list (say why each exists)"
    assert len(found) < LIMIT, sorted(found)


def test_a_new_abstract_class_is_caught(tmp_path: Path) -> None:
    (tmp_path / "ports.py").write_text(
        "from abc import ABC\nfrom typing import Protocol\n\n"
        "class IThing(ABC):\n    pass\n\nclass Shape(Protocol[int]):\n    pass\n\nclass Plain:\n    pass\n",
        encoding="utf-8",
    )
    assert abstract_classes(tmp_path) == {"IThing", "Shape"}
