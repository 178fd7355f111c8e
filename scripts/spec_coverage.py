"""Regenerate docs/spec-coverage.md: every `#### Scenario:` of the specs -> tests quoting its title.

A test covers a scenario when its docstring (or name) contains the scenario title verbatim.
Usage: python scripts/spec_coverage.py [SPECS_DIR]  (default ../shared/specs)
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PENDING_ISSUE: dict[str, int] = {}
# Specs that name test categories instead of scenarios: category -> the test modules that hold it.
CATEGORIES: dict[str, list[tuple[str, list[str]]]] = {
    "strategy-json-params.md": [
        ("Schema validity, rejection, JSON Schema export", ["tests/strategy_lab/test_strategy_params.py"]),
        (
            "JSON extraction, parameter injection, error collection",
            ["tests/strategy_lab/test_template_code_generator.py"],
        ),
        (
            "Error formatting, prompt integration, multi-error",
            ["tests/strategy_lab/test_structured_error.py"],
        ),
        ("Retry with feedback loop (scripted provider)", ["tests/strategy_lab/test_generation_loop.py"]),
        (
            "End-to-end JSON -> code -> backtest -> autonomous loop",
            [
                "tests/strategy_lab/test_autonomous_loop.py",
                "tests/strategy_lab/test_strategy_cli.py",
                "tests/strategy_lab/test_strategy_rest.py",
                "tests/strategy_lab/test_strategy_embedded.py",
            ],
        ),
        (
            "Backtest engine and metrics (hand-computed cases)",
            ["tests/shared/test_execution_engine_close.py", "tests/strategy_lab/test_backtest_metrics.py"],
        ),
    ],
    "debate-panel-and-ticker-scripts.md": [
        ("§2-3 debate JSON, rounds, consensus, source re-validation", ["tests/debate/test_panel.py"]),
        (
            "§3 expert tool loop (agent -> tools -> agent), bounds, turn-scoped sources",
            ["tests/debate/test_panel_tools.py", "tests/llm_platform/test_tool_loop.py"],
        ),
        (
            "Function calling per provider (OpenAI, embedded Qwen template, scripted)",
            ["tests/llm_platform/test_tool_calling.py"],
        ),
        (
            "§4.2/§5.3 5-minute bars: importer, store, get_ohlcv, intraday summary",
            [
                "tests/data_engineering/test_intraday_bars.py",
                "tests/debate/test_intraday_tool.py",
            ],
        ),
        ("§5.5 filing page index over whole pages", ["tests/debate/test_page_index.py"]),
        ("§1-2 standalone panel CLI", ["tests/debate/test_panel_cli.py"]),
        (
            "§7 ticker scripts: merge/sections, refiner edits, source and number checks, CLI, REST",
            [
                "tests/debate/test_briefing_merge.py",
                "tests/debate/test_briefing_edits.py",
                "tests/debate/test_briefing_checks.py",
                "tests/debate/test_briefing_service.py",
                "tests/debate/test_briefing_cli.py",
                "tests/debate/test_briefing_rest.py",
            ],
        ),
    ],
}


def scenarios(spec: Path) -> list[tuple[str, str]]:
    requirement, found = "", []
    for line in spec.read_text(encoding="utf-8").splitlines():
        if line.startswith("### Requirement:"):
            requirement = line.split(":", 1)[1].strip()
        elif match := re.match(r"#### Scenario:\s*(.+)", line):
            found.append((requirement, match.group(1).strip()))
    return found


def tests() -> list[tuple[str, str]]:
    """(node id, name + docstring) of every test function."""
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                text = f"{node.name} {ast.get_docstring(node) or ''}"
                found.append((f"{path.relative_to(ROOT)}::{node.name}", text))
    return found


def main() -> None:
    specs = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "specs"
    all_tests = tests()
    lines = [
        "# Spec coverage: scenario -> test",
        "",
        "Every `#### Scenario:` of the specs in `../shared/specs/` with the tests whose docstring quotes its",
        "title. Regenerate with `python scripts/spec_coverage.py`; `tests/test_spec_coverage.py` checks that",
        "every test named here exists and quotes its scenario. The judge design spec has no scenario",
        "headings and is covered decision by decision in its issues; the strategy JSON-params spec's test",
        "categories and the panel-debate spec's sections are listed at the end with their test modules",
        "(and test counts).",
        "",
    ]
    for spec in sorted(specs.glob("*.md")):
        found = scenarios(spec)
        if not found:
            continue
        lines += [f"## {spec.name}", "", "| requirement | scenario | tests |", "| --- | --- | --- |"]
        for requirement, title in found:
            covering = [node for node, text in all_tests if title in text]
            cell = (
                "<br>".join(f"`{c}`" for c in covering)
                or f"not yet (issue #{PENDING_ISSUE.get(spec.name, '?')})"
            )
            lines.append(f"| {requirement} | {title} | {cell} |")
        lines.append("")
    for spec_name, categories in CATEGORIES.items():
        lines += [f"## {spec_name} (test categories)", "", "| category | tests |", "| --- | --- |"]
        for category, modules in categories:
            cells = [f"`{m}` ({sum(node.startswith(m + '::') for node, _ in all_tests)})" for m in modules]
            lines.append(f"| {category} | {'<br>'.join(cells)} |")
        lines.append("")
    (ROOT / "docs" / "spec-coverage.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
