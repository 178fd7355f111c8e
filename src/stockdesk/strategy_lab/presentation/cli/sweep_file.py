"""Reading a sweep's grid file (YAML) into a `SweepSpec`, with one-line errors.

The file says what `strategy run` takes on its command line, under the same names:

    grid: {parameter: [values] or a fixed value, ...}   # or: llm_runs: K
    split: {mode: fixed | walk-forward, in_sample: 0.6, validation: 0.2, folds: 3}
    execution: {capital: 1000000, slippage: 0.0005, lots: true}
    universe: all | [S1, S2] | "S1,S2"
    from: 2017-06-01
    to: 2020-06-16
    max_drawdown: 0.5
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from stockdesk.shared.dates import parse_day
from stockdesk.strategy_lab.domain.dtos import BacktestWindow, ExecutionSettings, SplitConfig
from stockdesk.strategy_lab.domain.sweep import SweepGridError, SweepSpec

TOP_KEYS = ("grid", "llm_runs", "split", "execution", "universe", "from", "to", "max_drawdown")
SPLIT_KEYS = ("mode", "in_sample", "validation", "folds")
EXECUTION_KEYS = ("capital", "slippage", "lots")


def read_grid(path: Path) -> SweepSpec:
    """The spec a grid file describes; SweepGridError (exit 2) for anything wrong with it."""
    if not path.is_file():
        raise SweepGridError(f"--grid: no such file {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepGridError(f"--grid: cannot read {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise SweepGridError(f"--grid: {path} is not YAML: {' '.join(str(exc).split())}") from exc
    return spec_from(data, path.name)


def spec_from(data: Any, name: str = "the grid file") -> SweepSpec:
    section = _mapping(data, name, TOP_KEYS)
    try:
        return SweepSpec(
            grid=section.get("grid"),
            llm_runs=section.get("llm_runs"),
            window=BacktestWindow(
                universe=_universe(section.get("universe")),
                start=_day(section.get("from")),
                end=_day(section.get("to")),
            ),
            split=_split(_mapping(section.get("split") or {}, "split", SPLIT_KEYS)),
            execution=_execution(_mapping(section.get("execution") or {}, "execution", EXECUTION_KEYS)),
            **({"max_drawdown_limit": section["max_drawdown"]} if "max_drawdown" in section else {}),
        )
    except ValidationError as exc:
        raise SweepGridError(f"{name}: {_one_line(exc)}") from exc


def _mapping(value: Any, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SweepGridError(f"{where} must be a mapping of {', '.join(allowed)}")
    unknown = [str(k) for k in value if k not in allowed]
    if unknown:
        raise SweepGridError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(allowed)})")
    return {str(k): v for k, v in value.items()}


def _universe(value: Any) -> list[str] | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "all")):
        return None
    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, list):
        raise SweepGridError("universe must be all, a list of symbols, or a comma-separated string")
    return [str(p).strip() for p in parts if str(p).strip()]


def _day(value: Any) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return parse_day(str(value))


def _split(section: dict[str, Any]) -> SplitConfig:
    mode = str(section.get("mode", "fixed")).replace("-", "_")
    if mode not in ("fixed", "walk_forward"):
        raise SweepGridError(f"split.mode must be fixed or walk-forward, not {section.get('mode')!r}")
    return SplitConfig.model_validate({**section, "mode": mode})


def _execution(section: dict[str, Any]) -> ExecutionSettings:
    lots = section.pop("lots", True)
    if not isinstance(lots, bool):
        raise SweepGridError(f"execution.lots must be true or false, not {lots!r}")
    settings = ExecutionSettings.model_validate(section)
    return settings if lots else settings.model_copy(update={"capital": None})


def _one_line(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
