"""The embedded server's own recovery: a server that died is noticed after the failed call, dropped,
and started again by the next attempt, on a new address the provider follows.

Only the runtime start is swapped (no weights): `_start` launches the stand-in model server process
instead of xllamacpp; the health check, restart decision and provider logic are the real ones.
"""

from __future__ import annotations

from pathlib import Path

from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.infrastructure.embedded.provider import EmbeddedProvider
from stockdesk.llm_platform.infrastructure.embedded.server import EmbeddedServer
from tests.faults.processes import ModelServer


class ProcessBackedServer(EmbeddedServer):
    """EmbeddedServer whose runtime is a model server process (a new port on every start)."""

    def __init__(self, folder: Path):
        super().__init__(lambda: folder, n_ctx=2048, threads=1, slots=1)
        self.folder = folder
        self.started: list[ModelServer] = []

    def _start(self) -> None:
        model = ModelServer(self.folder, f"embedded-{len(self.started)}").start()
        self.started.append(model)
        self._server, self._base_url = model, model.url

    def _stop_locked(self) -> None:
        if self._server is not None:
            self._server.kill()
        super()._stop_locked()


def test_a_dead_embedded_server_is_restarted_by_the_next_attempt(tmp_path: Path) -> None:
    server = ProcessBackedServer(tmp_path)
    service = LLMService(
        [ProviderRoute(alias="local", provider=EmbeddedProvider(server, name="local"))],
        options=LLMServiceOptions(backoff_seconds=0.0, max_retries=1),
    )
    try:
        assert service.generate("first").text == "{}"
        first = server.started[0]
        first.kill()  # the server process dies between calls

        result = service.generate("second")  # attempt 1 meets the dead server, attempt 2 a new one
        assert result.text == "{}" and result.alias == "local"
        assert len(server.started) == 2 and server.running
        assert server.started[1].url != first.url
        assert len(first.requests()) == 1 and len(server.started[1].requests()) == 1
        assert server.healthy()
    finally:
        service.close()
        for model in server.started:
            model.kill()


def test_a_live_server_is_kept_after_a_failed_call(tmp_path: Path) -> None:
    server = ProcessBackedServer(tmp_path)
    try:
        server.base_url()
        assert server.restart_if_dead() is False  # healthy: a refused request is not a dead server
        assert len(server.started) == 1 and server.running
        server.started[0].kill()
        assert server.restart_if_dead() is True and not server.running
    finally:
        for model in server.started:
            model.kill()
