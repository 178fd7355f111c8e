"""The real embedded model: a cancel ends its call at once and frees the model's slot (issue 32,
item 1: "the llama.cpp slot is freed").

A long generation is started inside a job and cancelled; the call must end within 2 s and llama.cpp's
`GET /slots` must show no slot processing within 3 s. The answer is read as a stream: llama.cpp sees a
client gone when its next token's write fails. A non-streamed request's slot went on generating for up
to 53 s after the cancel (benchmarks/embedded_cancel_probe.py measures it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.tasks.cancel import CancelToken, JobCancelled, set_token

pytestmark = pytest.mark.slow


@pytest.fixture
def local_service(settings: Settings, database: Database) -> Iterator[LLMService]:
    service = build_llm_service(settings, database)
    yield service
    service.close()


def _slots(root: str) -> list[dict]:
    answer = httpx.get(f"{root}/slots", timeout=5)
    if answer.status_code != 200:
        pytest.skip(
            f"the embedded server does not report its slots (GET /slots answered {answer.status_code})"
        )
    return answer.json()


def _busy(root: str) -> bool:
    return any(slot.get("is_processing") for slot in _slots(root))


def test_a_cancel_ends_the_real_models_call_and_frees_its_slot(local_service: LLMService) -> None:
    server = local_service._routes[0].provider._server  # the test reads the real server's slots
    root = server.base_url().removesuffix("/v1")
    token = CancelToken()
    outcome: list[BaseException | object] = []

    def job() -> None:
        set_token(token)
        try:
            outcome.append(
                local_service.generate(
                    "Write the whole numbers from 1 to 3000, separated by commas, and nothing else.",
                    max_tokens=1500,
                    timeout_seconds=900,
                    caller="test.cancel",
                )
            )
        except BaseException as exc:  # the outcome under test
            outcome.append(exc)

    thread = threading.Thread(target=job, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not _busy(root):  # the model is generating
        assert time.monotonic() < deadline, "the slot never started"
        time.sleep(0.2)
    time.sleep(2.0)
    asked = time.monotonic()
    token.cancel("cancelled by the user")
    thread.join(timeout=10)
    assert outcome and isinstance(outcome[0], JobCancelled), outcome
    ended = time.monotonic() - asked
    assert ended < 2.0, f"the call ended {ended:.1f} s after the cancel"
    while _busy(root) and time.monotonic() - asked < 30:
        time.sleep(0.05)
    idle = time.monotonic() - asked
    assert idle < 3.0, f"the slot was still generating {idle:.1f} s after the cancel"
