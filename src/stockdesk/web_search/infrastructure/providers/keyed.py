"""What the key-holding web APIs (Bocha, Tavily) share: a Bearer key, scrubbed from every message."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from stockdesk.shared.errors import ConfigurationError
from stockdesk.web_search.domain.ports import IWebSearchProvider
from stockdesk.web_search.infrastructure.providers.http import ProviderHttp, RetryPolicy


class BearerKeyProvider(IWebSearchProvider):
    """Subclasses set `name`, `path` (appended to the base URL), `key_env` and `default_base_url`."""

    path: str
    key_env: str
    default_base_url: str

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        timeout_seconds: float = 20.0,
        client: httpx.Client | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if not api_key:
            raise ConfigurationError(f"search provider '{self.name}' needs an API key, and none was given")
        self._api_key = api_key
        self._url = f"{(base_url or self.default_base_url).rstrip('/')}{self.path}"
        self._http = ProviderHttp(
            self.name,
            timeout_seconds=timeout_seconds,
            client=client,
            retry=retry,
            sleep=sleep,
            secrets=(api_key,),
            hints={401: f"check ${self.key_env}"},
        )

    def post(self, body: dict[str, Any]) -> Any:
        return self._http.post_json(
            self._url, json=body, headers={"Authorization": f"Bearer {self._api_key}"}
        )

    def close(self) -> None:
        self._http.close()
