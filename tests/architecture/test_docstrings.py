"""A docstring that leans on a spec decision names the spec file, so a newcomer can open it.

`Decision N` alone means nothing outside the session that wrote it: each mention has to name
the spec (a `<name>.md` of ../shared/specs) on the same or an adjacent line, and where the specs
are present, that file must exist and hold that decision's section.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT.parent / "shared" / "specs"
DECISION = re.compile(r"Decision (\d+)")
SPEC_FILE = re.compile(r"([\w-]+\.md)")


def decision_mentions(source: Path) -> list[tuple[str, int, str | None, str]]:
    """(file, line, spec named nearby or None, decision number) for every `Decision N` in `source`."""
    found = []
    for path in sorted(source.rglob("*.py")):
        lines = path.read_text("utf-8").splitlines()
        for number, line in enumerate(lines):
            for match in DECISION.finditer(line):
                near = " ".join(lines[max(0, number - 1) : number + 2])
                spec = SPEC_FILE.search(near)
                found.append(
                    (str(path.relative_to(source)), number + 1, spec and spec.group(1), match.group(1))
                )
    return found


def test_every_decision_mentioned_names_its_spec_file() -> None:
    mentions = decision_mentions(ROOT / "src")
    assert [m for m in mentions if m[2] is None] == []
    if not SPECS.is_dir():
        print(f"{SPECS} is not here: the files and sections named are not opened")
        return
    for where, line, spec, number in mentions:
        text = (SPECS / str(spec)).read_text("utf-8") if (SPECS / str(spec)).is_file() else ""
        assert f"### Decision {number}" in text, f"{where}:{line} cites {spec}, Decision {number}"


def test_a_bare_decision_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        '"""The port (Decision 6)."""\n\n\n"""Fine (judge-design.md,\nDecision 6)."""\n'
    )
    assert decision_mentions(tmp_path) == [("a.py", 1, None, "6"), ("a.py", 5, "judge-design.md", "6")]
