"""docs/architecture.md stays true: its layer list is the import-linter `contexts` contract, it
names every context in the package, and every path it gives exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "stockdesk"


def doc_layers(text: str) -> list[str]:
    """The first ```text block after `## Layers`, a layer a line."""
    section = text.split("## Layers", 1)[1]
    block = section.split("```text", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.strip().splitlines()]


def contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["id"] == "contexts")["layers"]


def test_the_layer_picture_is_the_import_linter_contract() -> None:
    assert doc_layers(DOC.read_text("utf-8")) == contract_layers()


def test_every_context_is_in_a_layer_and_in_the_table() -> None:
    text = DOC.read_text("utf-8")
    contexts = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    layered = {name.strip() for layer in doc_layers(text) for name in layer.split("|")}
    assert layered == contexts
    section = text.split("## Contexts", 1)[1].split("\n## ", 1)[0]  # other tables name classes
    table = set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))
    assert table == contexts


def test_every_path_the_page_gives_exists() -> None:
    text = DOC.read_text("utf-8")
    paths = set(re.findall(r"`((?:src/stockdesk/|[a-z_]+/)[\w/.<>-]+)`", text))
    checked = 0
    for path in paths:
        if "<" in path:  # a pattern (`<expert>`), not a file
            continue
        full = ROOT / path if path.startswith(("src/", "tests/", "docs/", "benchmarks/")) else PACKAGE / path
        assert full.exists(), f"docs/architecture.md names {path}, which is not there"
        checked += 1
    assert checked >= 20


def test_a_layer_out_of_step_is_caught(tmp_path: Path) -> None:
    changed = DOC.read_text("utf-8").replace("debate | judge", "judge | debate | research", 1)
    assert doc_layers(changed) != contract_layers()
