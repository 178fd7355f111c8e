"""The language-model tests talk to real local HTTP servers (fake OpenAI-shaped ones, the embedded
model's): a proxy from the environment must never sit between the SDK and them."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
