"""A batch's LLM usage rides in its task results, so calls made in worker processes reach the report.

A worker process has its own meter; the one channel back to the driver is the task results the
store keeps. Each batch's usage goes on ONE of its results (the first verdict), under `usage`, in
the shape the runner's `RunBudget` reads (`tokens`, `cost_usd`): summing the job's results then
counts every batch once. A batch whose every point failed stores no result, so what it spent is
only in the LLM audit log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from stockdesk.evaluation.domain.ports import Usage

USAGE_KEY = "usage"


def with_usage(results: dict[str, Any], usage: Usage) -> dict[str, Any]:
    """`results` with `usage` added to the first result dict (nothing added when nothing was spent)."""
    if not (usage.calls or usage.cache_hits or usage.tokens or usage.cost_usd):
        return results
    for value in results.values():
        if isinstance(value, dict):
            value[USAGE_KEY] = {
                "calls": usage.calls,
                "cache_hits": usage.cache_hits,
                "tokens": usage.tokens,
                "cost_usd": round(usage.cost_usd, 6),
            }
            break
    return results


def usage_in(results: Iterable[Mapping[str, Any] | None]) -> Usage:
    """What the batches behind these task results spent, summed."""
    total = Usage()
    for result in results:
        found = (result or {}).get(USAGE_KEY) or {}
        total.calls += int(found.get("calls") or 0)
        total.cache_hits += int(found.get("cache_hits") or 0)
        total.tokens += int(found.get("tokens") or 0)
        total.cost_usd += float(found.get("cost_usd") or 0.0)
    return total
