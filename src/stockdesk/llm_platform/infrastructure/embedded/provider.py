"""Embedded provider: the OpenAI-compatible adapter pointed at the local server, one call per slot.

Tool calls are written and read in Qwen2.5's template format (tool_template), since the server
applies the plain ChatML template.

Callers beyond the slot count queue on a semaphore; their timeout starts when their own request
is sent, so a queued expert waits instead of failing.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext

from stockdesk.llm_platform.domain.dtos import CompletionRequest, CompletionResponse
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.domain.ports import ILLMProvider
from stockdesk.llm_platform.infrastructure.embedded.server import ModelServer
from stockdesk.llm_platform.infrastructure.embedded.tool_template import (
    parse_answer,
    render_request,
    uses_tools,
)
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.shared.tasks.cancel import check_cancelled, is_cancelled

LOCAL_MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
SLOT_POLL_SECONDS = 0.2  # how often a caller queued for a slot looks whether its job was cancelled


class EmbeddedProvider(ILLMProvider):
    def __init__(self, server: ModelServer, *, slots: int = 1, name: str = "embedded"):
        self.name = name
        self.model = LOCAL_MODEL_NAME
        self.supports_json_schema = True
        self._server = server
        self._slots = threading.BoundedSemaphore(max(1, slots))
        self._client: OpenAICompatibleProvider | None = None
        self._client_url: str | None = None

    def _adapter(self) -> OpenAICompatibleProvider:
        url = self._server.base_url()
        if self._client is None or self._client_url != url:
            self._client = OpenAICompatibleProvider(
                name=self.name,
                base_url=url,
                model=LOCAL_MODEL_NAME,
                api_key=None,
                # DRY penalises repeating a phrase and leaves JSON punctuation alone (it breaks
                # sequences at quotes and colons), where frequency_penalty would punish every quote
                repetition_parameter="dry_multiplier",
                # keep each slot's KV cache between calls: a call that starts like the previous one
                # (the research experts' shared system prompt) evaluates only what differs
                extra_body={"cache_prompt": True},
                # a stream, so that a cancelled job's call frees its slot at the next token
                streams=True,
            )
            self._client_url = url
        return self._client

    def complete(self, request: CompletionRequest) -> CompletionResponse:
        if not uses_tools(request):
            return self._send(request)
        response = self._send(render_request(request))
        if not request.tools:
            return response
        text, calls = parse_answer(response.text, [t.name for t in request.tools])
        return response.model_copy(update={"text": text, "tool_calls": calls})

    def _send(self, request: CompletionRequest) -> CompletionResponse:
        # wait for a free slot (this process's, and the node's when the server is shared by many
        # workers); the request timeout starts after this
        node_slot = getattr(self._server, "slot", None)
        self._wait_for_slot()
        try:
            with node_slot() if node_slot is not None else nullcontext():
                return self._send_in_slot(request)
        finally:
            self._slots.release()

    def _wait_for_slot(self) -> None:
        """Queue for one of this process's slots; a cancelled job leaves the queue at once."""
        while not self._slots.acquire(timeout=SLOT_POLL_SECONDS):
            check_cancelled()
        if is_cancelled():
            self._slots.release()
            check_cancelled()

    def _send_in_slot(self, request: CompletionRequest) -> CompletionResponse:
        try:
            return self._adapter().complete(request)
        except LLMTransientError as exc:
            if self._server.restart_if_dead():
                raise LLMTransientError(
                    "the embedded model server died during the call; it restarts on the next try"
                ) from exc
            raise

    def close(self) -> None:
        self._server.stop()
