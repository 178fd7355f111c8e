"""The one way the web search providers call HTTP: timeout, a few retries, one-line errors.

Transient faults (connection errors, timeouts, HTTP 429 and 5xx) are retried with exponential
backoff; anything else fails at once. Every failure becomes a `SearchProviderError` whose message
names the provider and the HTTP status, so the search service can log it and try the next provider.
API keys travel only in headers and are scrubbed from any text a server sends back; neither the
headers nor the key ever reach a message or a log line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from stockdesk.shared.redact import redact_text, register_secrets
from stockdesk.web_search.domain.exceptions import SearchProviderError
from stockdesk.web_search.infrastructure.providers.mapping import results_list

logger = logging.getLogger(__name__)

DETAIL_CHARS = 200


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts per call and the first backoff pause (doubling, capped); tests pass backoff 0."""

    attempts: int = 3
    backoff_seconds: float = 0.5
    max_backoff_seconds: float = 4.0


class _RetryableStatus(Exception):
    """An HTTP 429/5xx answer, raised inside the retry loop so that tenacity tries again."""

    def __init__(self, response: httpx.Response):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, _RetryableStatus):
        return True
    # A bad scheme in a configured URL will not fix itself; a dropped connection might. A read
    # that timed out is not resent (as with LLM calls): the next provider is asked instead.
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.ReadTimeout)):
        return False
    return isinstance(exc, httpx.TransportError)


def error_detail(response: httpx.Response) -> str:
    """The server's own one-line reason from a JSON error body (Bocha `msg`/`message`, Tavily
    `detail.error`, generic `error`), or "" when the body is not JSON (e.g. an HTML error page)."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    for key in ("msg", "message", "detail", "error"):
        value = body.get(key)
        if isinstance(value, dict):
            value = value.get("error") or value.get("message")
        if isinstance(value, str) and value.strip():
            return one_line(value)
    return ""


def one_line(text: str, limit: int = DETAIL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ProviderHttp:
    """HTTP calls of one provider: its client, timeout, retry policy and secrets to scrub.

    `client` lets tests answer through `httpx.MockTransport`; None builds (and owns) a real one.
    `sleep` is tenacity's pause between attempts, injectable so tests never wait. `hints` add what
    the user can do to the message for a status (e.g. 401 -> "check $BOCHA_API_KEY").
    """

    def __init__(
        self,
        provider: str,
        *,
        timeout_seconds: float,
        client: httpx.Client | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        secrets: Sequence[str] = (),
        hints: Mapping[int, str] | None = None,
    ):
        self.provider = provider
        self.timeout_seconds = timeout_seconds
        self.retry = retry or RetryPolicy()
        self._owns_client = client is None
        self._client = client or httpx.Client()
        self._sleep = sleep
        self._secrets = tuple(s for s in secrets if s)
        register_secrets(*self._secrets)  # masked in logs and audit rows too, not only in our errors
        self._hints = dict(hints or {})

    def get_json(self, url: str, *, params: Mapping[str, Any] | None = None) -> Any:
        return self._call("GET", url, params=params)

    def post_json(self, url: str, *, json: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        return self._call("POST", url, json=json, headers=headers)

    def json_object(self, answer: Any) -> dict[str, Any]:
        """A 200 answer must be a JSON object; anything else is this provider's error."""
        if not isinstance(answer, dict):
            raise self.fail("answered HTTP 200 with JSON that is not an object")
        return answer

    def result_objects(self, value: Any, where: str) -> list[dict[str, Any]]:
        """The objects of a results array (`where` names it in the error when its shape changed)."""
        try:
            return results_list(value)
        except ValueError as exc:
            raise self.fail(f"answered HTTP 200 with unexpected {where}: {exc}") from None

    def fail(self, reason: str) -> SearchProviderError:
        """The error naming this provider, secrets scrubbed; providers use it for wrong 2xx answers too."""
        return SearchProviderError(f"search provider '{self.provider}' {redact_text(reason, self._secrets)}")

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def _call(self, method: str, url: str, **kwargs: Any) -> Any:
        attempts = self.retry.attempts
        try:
            response = self._send(method, url, **kwargs)
        except _RetryableStatus as exc:
            raise self.fail(self._status_reason(exc.response, f"after {attempts} attempts")) from None
        except httpx.ReadTimeout as exc:
            raise self.fail(
                f"did not answer within {self.timeout_seconds:g} s (not resent, no HTTP status)"
            ) from exc
        except httpx.TimeoutException as exc:
            raise self.fail(
                f"did not answer within {self.timeout_seconds:g} s ({attempts} attempts, no HTTP status)"
            ) from exc
        except httpx.HTTPError as exc:
            host = httpx.URL(url).host or "?"
            raise self.fail(f"is unreachable at {host}: {type(exc).__name__} (no HTTP status)") from exc
        status = response.status_code
        if status >= 400:
            raise self.fail(self._status_reason(response, ""))
        try:
            return response.json()
        except ValueError:
            raise self.fail(f"answered HTTP {status} with a body that is not JSON") from None

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        retrying = Retrying(
            stop=stop_after_attempt(self.retry.attempts),
            wait=wait_exponential(multiplier=self.retry.backoff_seconds, max=self.retry.max_backoff_seconds),
            retry=retry_if_exception(_is_transient),
            sleep=self._sleep,
            before_sleep=self._log_retry,
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                response = self._client.request(method, url, timeout=self.timeout_seconds, **kwargs)
                if response.status_code == 429 or response.status_code >= 500:
                    raise _RetryableStatus(response)
                return response
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    def _status_reason(self, response: httpx.Response, suffix: str) -> str:
        status = response.status_code
        what = {401: "rejected the API key", 403: "refused access", 429: "is rate limiting"}.get(
            status, "failed" if status >= 500 else "refused the request"
        )
        detail = error_detail(response)
        reason = f"{what} (HTTP {status}{': ' + detail if detail else ''})"
        if suffix:
            reason += f" {suffix}"
        if status in self._hints:
            reason += f"; {self._hints[status]}"
        return reason

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        reason = str(exc) if isinstance(exc, _RetryableStatus) else type(exc).__name__
        logger.warning(
            "search provider %s: %s on attempt %d of %d; retrying",
            self.provider,
            reason,
            state.attempt_number,
            self.retry.attempts,
        )
