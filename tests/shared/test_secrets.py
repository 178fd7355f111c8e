"""Credentials are masked the same way everywhere: URLs, free text, settings, logs, errors, audit rows."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import httpx
import pytest

import stockdesk.shared.logging as desk_logging
from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, LLMCallRecord, ToolCallRecord
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import StockdeskError, one_line
from stockdesk.shared.redact import redact_text, redact_url, url_secrets
from stockdesk.web_search.domain.exceptions import SearchProviderError
from stockdesk.web_search.domain.search import SearchCallRecord, WebSearchRequest
from stockdesk.web_search.infrastructure.persistence.repositories import SqlSearchStore
from stockdesk.web_search.infrastructure.providers.http import RetryPolicy
from stockdesk.web_search.infrastructure.providers.searxng import SearxngSearchProvider

KEY = "sk-live-0123456789abcdef"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://user:pw@host/x?api_key=k&q=1", "https://user:***@host/x?api_key=***&q=1"),
        ("https://ghp_token123@github.com/a", "https://***@github.com/a"),
        ("http://h/search?format=json&token=t&apikey=a&X-Amz-Signature=s", None),
        ("postgresql+psycopg://desk:s3cret@db:5432/stockdesk", "postgresql+psycopg://desk:***@db:5432/stockdesk"),
    ],
)  # fmt: skip
def test_redact_url_masks_userinfo_and_secret_query_values(url: str, expected: str | None) -> None:
    if expected is None:
        expected = "http://h/search?format=json&token=***&apikey=***&X-Amz-Signature=***"
    assert redact_url(url) == expected


@pytest.mark.parametrize("url", ["https://api.tavily.com", "http://h:8080/v1/?q=bank&page=2", "http://[::1"])
def test_redact_url_leaves_urls_without_credentials_exactly_as_they_were(url: str) -> None:
    assert redact_url(url) == url


def test_url_secrets_returns_passwords_raw_and_decoded_and_secret_query_values() -> None:
    found = url_secrets("http://u:p%40ss-word@h/?token=tok-123&q=2")
    assert set(found) == {"p%40ss-word", "p@ss-word", "tok-123"}


def test_redact_text_masks_known_keys_wherever_they_are_and_credential_shapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BOCHA_API_KEY", KEY)
    text = (
        f"server said: invalid key {KEY}; see http://u:pw@127.0.0.1:9/v1?api_key=abc&x=1 "
        "Authorization: Bearer sk-abcdefghij, auth=Basic dTpwdzEyMzQ1Ng== {'password': 'hunter22'} "
        "query ?token=55"
    )
    clean = redact_text(text)
    for leaked in (KEY, ":pw@", "api_key=abc", "sk-abcdefghij", "dTpwdzEyMzQ1Ng==", "hunter22", "token=55"):
        assert leaked not in clean
    assert "http://u:***@127.0.0.1:9/v1?api_key=***&x=1" in clean
    assert redact_text("secret-value-xyz here", ["secret-value-xyz"]) == "*** here"


def test_redact_text_does_not_mask_ordinary_words_and_numbers() -> None:
    text = "prompt_tokens=100 completion_tokens=50; Basic Materials; token budget: 1000; https://news.example.com/1"
    assert redact_text(text) == text


def test_config_show_masks_credentials_in_every_url_valued_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every string setting whose name says URL gets credentials; none of them may show in the dump."""
    secret_of: dict[str, str] = {}
    url_fields = [
        name
        for name, f in Settings.model_fields.items()
        if "url" in name and f.annotation in (str, str | None)
    ]
    assert {"database_url", "llm_base_url", "searxng_url", "bocha_base_url", "tavily_base_url"} <= set(
        url_fields
    )
    for name in url_fields:
        secret_of[name] = f"pw-{name}-987654"
        monkeypatch.setenv(
            f"STOCKDESK_{name.upper()}", f"http://user:{secret_of[name]}@h.example/x?key=q-{name}-55"
        )
    monkeypatch.setenv("STOCKDESK_LLM_MODEL", "m")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    alias = {
        "name": "a",
        "base_url": "http://a:alias-pass-123@h2/v1?access_token=alias-token-456",
        "model": "m",
    }
    monkeypatch.setenv("STOCKDESK_LLM_ALIASES", json.dumps([alias]))
    dumped = json.dumps(Settings().redacted())
    for name, secret in secret_of.items():
        assert secret not in dumped and f"q-{name}-55" not in dumped, name
    for leaked in (KEY, "alias-pass-123", "alias-token-456"):
        assert leaked not in dumped
    assert "http://a:***@h2/v1?access_token=***" in dumped and "http://user:***@h.example/x?key=***" in dumped


def test_the_log_filter_masks_messages_arguments_tracebacks_and_stacks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    monkeypatch.setenv("STOCKDESK_SEARXNG_URL", "http://sx:searx-pass-321@h/?token=searx-token-654")
    with _configured(tmp_path, monkeypatch) as log_file:
        log = logging.getLogger("stockdesk.test_secrets")
        log.warning("calling %s with %s", "http://u:url-pass-777@h/v1", KEY)
        log.info("searxng answered for searx-pass-321 and searx-token-654")
        try:
            try:
                raise ValueError(f"provider echoed {KEY} at http://u:cause-pass-888@h")
            except ValueError as cause:
                raise RuntimeError("wrapped") from cause
        except RuntimeError:
            log.exception("failed")
        log.debug("where", stack_info=True)
        for handler in logging.getLogger().handlers:
            handler.flush()
        text = log_file.read_text(encoding="utf-8")
    for leaked in (KEY, "url-pass-777", "cause-pass-888", "searx-pass-321", "searx-token-654"):
        assert leaked not in text
    assert "provider echoed ***" in text and "http://u:***@h/v1" in text and "Traceback" in text


class _configured:
    """configure_logging for real in a test (it runs once per process), undone afterwards."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tmp_path, self.monkeypatch = tmp_path, monkeypatch

    def __enter__(self) -> Path:
        self.monkeypatch.setattr(desk_logging, "_CONFIGURED", False)
        root = logging.getLogger()
        self.before, self.level = list(root.handlers), root.level
        return desk_logging.configure_logging(
            self.tmp_path / "logs", "DEBUG", console_level="CRITICAL", settings=Settings()
        )

    def __exit__(self, *exc: object) -> None:
        root = logging.getLogger()
        for handler in [h for h in root.handlers if h not in self.before]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(self.level)


def test_error_messages_are_redacted_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    error = StockdeskError(f"cannot reach http://u:err-pass-999@h/v1?api_key=q (key {KEY})")
    assert "err-pass-999" not in error.message and KEY not in str(error) and "api_key=***" in error.message
    assert KEY not in one_line(RuntimeError(f"boom {KEY}"))


def _refused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_llm_names_its_url_without_credentials() -> None:
    base = f"http://llm:llm-pass-4321@127.0.0.1:{_refused_port()}/v1?api_key=llm-query-8765"
    provider = OpenAICompatibleProvider(name="remote", base_url=base, model="m", api_key="custom-key-13579")
    request = CompletionRequest(messages=[ChatMessage(role="user", content="hi")], timeout_seconds=5)
    with pytest.raises(LLMTransientError) as caught:
        provider.complete(request)
    provider.close()
    assert "cannot reach remote at http://llm:***@127.0.0.1" in caught.value.message
    assert "llm-pass-4321" not in caught.value.message and "llm-query-8765" not in caught.value.message
    # the key was registered: an echo of it anywhere later is masked too
    assert redact_text("server echoed custom-key-13579") == "server echoed ***"


def test_a_search_server_echoing_its_credentials_gives_a_clean_error() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            403, json={"message": f"denied {request.url} auth={request.headers.get('Authorization')}"}
        )

    client = httpx.Client(transport=httpx.MockTransport(echo))
    provider = SearxngSearchProvider(
        "http://sx:sx-pass-2468@searx.lan/?token=sx-token-1357", client=client, retry=RetryPolicy(attempts=1)
    )
    with pytest.raises(SearchProviderError) as caught:
        provider.search(WebSearchRequest(query="bank"))
    assert "HTTP 403" in caught.value.message
    assert "sx-pass-2468" not in caught.value.message and "sx-token-1357" not in caught.value.message


def test_audit_rows_are_stored_redacted(database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    leak = f"at http://u:audit-pass-1122@h/v1?token=audit-token-3344 with {KEY}"
    llm = SqlLLMStore(database)
    llm.record(
        LLMCallRecord(
            run_id="r",
            caller=None,
            alias="a",
            provider="p",
            model="m",
            prompt_hash="h",
            status="error",
            error_class="LLMProviderError",
            error_message=leak,
            call_id="c1",
        )
    )
    llm.record_tools(
        [ToolCallRecord(call_id="c1", tool_call_id="t1", name="get_news", status="error", error=leak)]
    )
    SqlSearchStore(database).record(
        SearchCallRecord(
            provider="bocha", query="q", freshness="noLimit", count=5, status="error", error=leak
        )
    )
    with database.engine.connect() as conn:
        stored = [
            str(v)
            for table in ("llm_calls", "llm_tool_calls", "search_calls")
            for row in conn.exec_driver_sql(f"SELECT * FROM {table}")
            for v in row
        ]
    text = "\n".join(stored)
    assert text.count("http://u:***@h/v1?token=***") == 3
    for leaked in ("audit-pass-1122", "audit-token-3344", KEY):
        assert leaked not in text
