"""What one evaluation batch does in its worker: the verdicts of its points, by this process's container."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stockdesk.entrypoints.batch.workers import LLMFactory, worker_container
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.shared.config import Settings


@dataclass
class EvaluatePointsWork:
    """A batch worker (picklable): each key is a "SYMBOL|YYYY-MM-DD" point of `config`.

    Holds data only (settings, config, a module-level LLM factory): a closure over the driver's
    services would not pickle, and the worker must build its own database engine and LLM anyway.
    """

    settings: Settings
    config: EvaluationConfig
    llm: LLMFactory | None = None  # tests give a scripted service; None = the configured providers
    distributed: bool = True

    def __call__(self, keys: list[str]) -> dict[str, Any]:
        container = worker_container(self.settings, self.llm, self.distributed)
        return container.evaluation.service.verdicts_for(self.config, keys)
