"""import-linter contracts hold, and they do catch a violation (shown on a copy of the package)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def run_lint(package_parent: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_source_tree_keeps_every_contract() -> None:
    result = run_lint(ROOT / "src", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


VIOLATIONS = {
    "layers": (
        "llm_platform/application/leak.py",
        "from stockdesk.llm_platform.infrastructure import scripted\n",
        "Inside a context",
    ),
    "cross-context": (
        "research/application/leak.py",
        "from stockdesk.llm_platform.infrastructure import scripted\n",
        "Other contexts reach llm_platform only through its application package",
    ),
    "contexts": (
        "research/application/leak.py",
        "from stockdesk.debate import application\n",
        "Contexts in layers",
    ),
    "pure-core": (
        "judge/domain/leak.py",
        "import sqlalchemy\n",
        "Domain and application code use ports",
    ),
}


@pytest.mark.parametrize("kind", sorted(VIOLATIONS))
def test_a_violation_breaks_the_build(kind: str, tmp_path: Path) -> None:
    relative, code, contract = VIOLATIONS[kind]
    shutil.copytree(ROOT / "src" / "stockdesk", tmp_path / "src" / "stockdesk")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "src" / "stockdesk" / relative).write_text(code)
    result = run_lint(tmp_path / "src", tmp_path)
    assert result.returncode != 0
    assert "1 broken" in result.stdout
    assert contract in result.stdout.split("Broken contracts")[-1]


def import_cycles(package: str) -> list[tuple[str, str]]:
    """Each pair of modules that import each other, directly or through others (late imports and
    TYPE_CHECKING imports count: a cycle hidden inside a function is still a cycle)."""
    import grimp

    graph = grimp.build_graph(package)
    found = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(importer=imported, imported=module):
                found.add(tuple(sorted((module, imported))))
    return sorted(found)


def test_no_module_imports_itself_back_through_another() -> None:
    assert import_cycles("stockdesk") == []


def test_the_cycle_check_finds_a_late_import_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "cyclic"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("from cyclic.redact import mask\n")
    (package / "redact.py").write_text("def mask():\n    from cyclic.config import x  # late\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclic") == [("cyclic.config", "cyclic.redact")]
