"""How fast a cancel frees the embedded model's slot: prints, after each cancel, the seconds until
llama.cpp's `GET /slots` shows no slot processing.

    STOCKDESK_HOME=/tmp/probe python benchmarks/embedded_cancel_probe.py [runs]

When the embedded provider sent one request and read one body, the call ended at once but the slot
did not reliably stop: runs showed it idle 1 s after the cancel and 53 s after (the rest of its
generation), since llama.cpp does not always see the closed connection of a non-streamed request.
It now reads a stream, whose next write fails on the closed connection: the slot stops at the next
token. tests/llm_platform/test_embedded_cancel.py asserts both (the call ends within 2 s, the slot is
idle within 3 s).
"""

from __future__ import annotations

import os
import sys
import threading
import time

import httpx

from stockdesk.llm_platform.container import build_llm_service
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.tasks.cancel import CancelToken, set_token

PROMPT = "Write the whole numbers from 1 to 3000, separated by commas, and nothing else."


def busy(root: str) -> bool:
    return any(slot.get("is_processing") for slot in httpx.get(f"{root}/slots", timeout=5).json())


def one_run(service: object, root: str) -> tuple[float, float]:
    """(seconds until the call ended, seconds until the slot went idle) after one cancel."""
    token, outcome = CancelToken(), []

    def job() -> None:
        set_token(token)
        try:
            outcome.append(service.generate(PROMPT, max_tokens=1500, timeout_seconds=900, caller="probe"))  # type: ignore[attr-defined]
        except BaseException as exc:  # the outcome measured
            outcome.append(exc)

    thread = threading.Thread(target=job, daemon=True)
    thread.start()
    while not busy(root):
        time.sleep(0.2)
    time.sleep(2.0)
    asked = time.monotonic()
    token.cancel("probe")
    thread.join(timeout=30)
    ended = time.monotonic() - asked
    while busy(root) and time.monotonic() - asked < 300:
        time.sleep(0.1)
    return ended, time.monotonic() - asked


def main() -> None:
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    settings = Settings()
    service = build_llm_service(settings, Database(settings.effective_database_url))
    root = service._routes[0].provider._server.base_url().removesuffix("/v1")
    for run in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        ended, idle = one_run(service, root)
        print(f"run {run + 1}: call ended {ended:.2f} s, slot idle {idle:.1f} s after the cancel")
    service.close()


if __name__ == "__main__":
    main()
