"""Embedded llama.cpp server (xllamacpp): started lazily, shared by every call, stopped at exit.

Binds 127.0.0.1 on a free port. Speaks the OpenAI protocol, so the same adapter that talks to
remote providers talks to it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from pathlib import Path
from typing import Any, Protocol

import httpx

from stockdesk.llm_platform.domain.exceptions import LocalModelError

logger = logging.getLogger(__name__)


class ModelServer(Protocol):
    """What EmbeddedProvider needs of a model server: this process's own, or its node's (Ray)."""

    def base_url(self) -> str: ...

    def restart_if_dead(self) -> bool: ...

    def stop(self) -> None: ...


class EmbeddedServer:
    def __init__(self, model_path_factory: Any, *, n_ctx: int, threads: int, slots: int):
        """`model_path_factory()` returns the verified model path (assembled on first use)."""
        self._model_path_factory = model_path_factory
        self._n_ctx = n_ctx
        self._threads = threads
        self._slots = slots
        self._server: Any = None
        self._base_url: str | None = None
        self._lock = threading.Lock()
        self.load_seconds: float | None = None
        atexit.register(self.stop)

    @property
    def running(self) -> bool:
        return self._server is not None

    def base_url(self) -> str:
        """OpenAI base URL of the running server, starting it on first use."""
        with self._lock:
            if self._server is None:
                self._start()
            assert self._base_url is not None
            return self._base_url

    def _start(self) -> None:
        try:
            import xllamacpp
        except ImportError as exc:
            raise LocalModelError(
                "the embedded model runtime (xllamacpp) is not installed: "
                "run `pip install 'stockdesk[local]'` (or `make demo`)"
            ) from exc
        model_path: Path = self._model_path_factory()
        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = self._n_ctx
        params.n_parallel = self._slots
        params.cpuparams.n_threads = self._threads
        params.cpuparams_batch.n_threads = self._threads
        params.offline = True
        params.hostnames = ["127.0.0.1"]
        params.port = 0
        params.verbosity = 0
        params.warmup = False
        # Prompt cache: a slot keeps the KV of its last prompt and a new request reuses the common
        # prefix (answers report it as timings.cache_n), idle slots' prompts are saved to a RAM
        # cache, and a request goes to the slot whose cached prompt it resembles most. These are
        # llama.cpp's defaults today; set here so that a runtime update cannot silently drop them.
        params.cache_prompt = True
        params.cache_idle_slots = True
        started = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # the runtime raises plain RuntimeError on load failures
            raise LocalModelError(f"the embedded model failed to load from {model_path}: {exc}") from exc
        address = str(self._server.listening_address)
        if not address.startswith("http"):
            address = f"http://{address}"
        self._base_url = address.rstrip("/") + "/v1"
        self.load_seconds = round(time.perf_counter() - started, 2)
        logger.info("embedded model server up at %s in %.1f s", self._base_url, self.load_seconds)

    def healthy(self) -> bool:
        if self._base_url is None:
            return False
        try:
            root = self._base_url.removesuffix("/v1")
            return httpx.get(f"{root}/health", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def restart_if_dead(self) -> bool:
        """After a failed call: drop a dead server so that the next call starts a fresh one."""
        with self._lock:
            if self._server is not None and not self.healthy():
                logger.warning("embedded model server stopped responding; it will be restarted")
                self._stop_locked()
                return True
            return False

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        if self._server is not None:
            server, self._server, self._base_url = self._server, None, None
            del server  # the runtime shuts its loop down in the destructor
