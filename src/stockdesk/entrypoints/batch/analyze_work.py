"""What one batch-analysis task does in its worker: analyse a symbol, write its report, report back."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stockdesk.coordinator.application import ResearchRequest, SessionStatus
from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig
from stockdesk.coordinator.presentation.reports.render import write_report
from stockdesk.entrypoints.batch.workers import LLMFactory, worker_container
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.tasks.cancel import JobCancelled


class AnalysisFailed(StockdeskError):
    """The session ended without a verdict or any expert answer: worth another attempt."""

    code = "ANALYSIS_FAILED"


@dataclass
class AnalyzeSymbolsWork:
    """A batch worker (picklable): each key is a symbol of `config`."""

    settings: Settings
    config: BatchAnalysisConfig
    llm: LLMFactory | None = None  # tests give a scripted service; None = the configured providers
    distributed: bool = True

    def __call__(self, keys: list[str]) -> dict[str, Any]:
        container = worker_container(self.settings, self.llm, self.distributed)
        answer: dict[str, Any] = {}
        for symbol in keys:
            try:
                answer[symbol] = self._analyse(container, symbol)
            except JobCancelled:
                raise  # the whole batch goes back to pending; a cancel is not a failed attempt
            except Exception as exc:
                answer[symbol] = exc
        return answer

    def _analyse(self, container: Any, symbol: str) -> dict[str, Any]:
        config = self.config
        request = ResearchRequest(
            symbol=symbol,
            as_of=config.as_of,
            experts=config.experts,
            skip_debate=config.skip_debate,
            debate_mode=config.debate_mode,
            rules_only=config.rules_only,
        )
        started = time.perf_counter()
        with container.llm_service.usage_scope() as meter:
            session = container.coordinator.service.run(request)
        if session.status is SessionStatus.FAILED:
            problems = "; ".join(f"{k}: {v}" for k, v in {**session.expert_errors, **session.errors}.items())
            raise AnalysisFailed(f"session {session.id} failed: {problems or 'no expert answered'}")
        report = Path(config.out_dir) / config.report_name(symbol)
        write_report(session, report)
        verdict = session.verdict or {}
        return {
            "session_id": session.id,
            "session_status": session.status.value,
            "action": verdict.get("action"),
            "holder_action": (verdict.get("holder_plan") or {}).get("action"),
            "confidence": verdict.get("confidence"),
            "evidence": verdict.get("evidence"),
            "report": report.name,
            "seconds": round(time.perf_counter() - started, 2),
            "usage": meter.as_dict(),
        }
