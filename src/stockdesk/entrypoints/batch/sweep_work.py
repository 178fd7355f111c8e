"""What a strategy sweep's task does in its worker: score parameter sets (or write the summary).

Picklable (Settings and the spec travel to Ray workers); each worker process builds its container
once, and the container's `sweep_trials` keeps the sweep's market panel for the process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stockdesk.entrypoints.batch.workers import LLMFactory, worker_container
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.application.sweep_service import score_batch
from stockdesk.strategy_lab.domain.sweep import SweepSpec


@dataclass
class SweepWork:
    """A batch worker: each key is a parameter set's task of `job_id` (or its summary task)."""

    settings: Settings
    spec: SweepSpec
    job_id: str
    llm: LLMFactory | None = None  # tests give a scripted service; None = the configured providers
    distributed: bool = True

    def __call__(self, keys: list[str]) -> Mapping[str, Mapping[str, Any] | BaseException]:
        container = worker_container(self.settings, self.llm, self.distributed)
        lab = container.strategy_lab
        # only LLM proposals meter usage: a grid never builds the LLM service
        usage = container.llm_service.usage_scope if self.spec.llm_runs is not None else None
        return score_batch(lab.sweep_trials, lab.sweeps, self.spec, self.job_id, keys, usage)
