"""The model server killed mid-analysis (SIGKILL): the session ends partial naming the unreachable
model, without hanging, and a retry once the server is back completes it as a child session."""

from __future__ import annotations

import asyncio
from pathlib import Path

from stockdesk.coordinator.application import ResearchRequest, SessionStatus
from tests.coordinator.support import AS_OF, SYMBOL
from tests.faults.processes import Background, ModelServer, wait_until
from tests.faults.support import alias, desk, remote_settings

# without stored news, three experts ask the model; macro and catalyst answer from code
MODEL_EXPERTS = 3


def request() -> ResearchRequest:
    return ResearchRequest(symbol=SYMBOL, as_of=AS_OF)


def test_killed_while_experts_run_then_retry_completes_the_session(tmp_path: Path) -> None:
    server = ModelServer(tmp_path).start(hang_after=MODEL_EXPERTS - 1)  # the third expert's call hangs
    try:
        container = desk(remote_settings(alias(server, "default", 0), llm_max_retries=1))
        service = container.coordinator.service
        run = Background(lambda: service.run(request()))
        wait_until(lambda: len(server.requests()) == MODEL_EXPERTS, "the third expert's call")
        server.kill()
        partial = run.result()

        assert partial.status is SessionStatus.PARTIAL
        [(failed, error)] = partial.expert_errors.items()
        assert error.startswith("every LLM provider failed: default: cannot reach default at ")
        assert server.url in error and "\n" not in error and "Traceback" not in error
        assert len(partial.expert_results) == 4
        assert "cannot reach default" in partial.errors["debate"]  # the debate met the dead server too
        assert partial.verdict == {}

        server.start()  # back on the same address
        retried = asyncio.run(service.aretry(partial.id))
        assert retried.status is SessionStatus.COMPLETED
        assert retried.parent_session_id == partial.id
        assert sorted(retried.reused_experts) == sorted(partial.expert_results)
        assert failed in retried.expert_results and not retried.expert_errors
        assert retried.verdict and retried.debate_outcome
    finally:
        server.kill()


def test_killed_during_the_debate_then_retry_reruns_debate_and_verdict(tmp_path: Path) -> None:
    server = ModelServer(tmp_path).start(hang_after=MODEL_EXPERTS)  # the debate's first call hangs
    try:
        container = desk(remote_settings(alias(server, "default", 0), llm_max_retries=1))
        service = container.coordinator.service
        run = Background(lambda: service.run(request()))
        wait_until(lambda: len(server.requests()) > MODEL_EXPERTS, "the debate's first call")
        server.kill()
        partial = run.result()

        assert partial.status is SessionStatus.PARTIAL
        assert not partial.expert_errors and len(partial.expert_results) == 5
        assert "cannot reach default" in partial.errors["debate"] and partial.verdict == {}

        server.start()
        retried = asyncio.run(service.aretry(partial.id))
        assert retried.status is SessionStatus.COMPLETED and retried.parent_session_id == partial.id
        assert sorted(retried.reused_experts) == sorted(partial.expert_results)
        assert server.count("ValuationModelOutput") == 1  # the experts were not asked again
        assert retried.debate_outcome and retried.verdict
    finally:
        server.kill()
