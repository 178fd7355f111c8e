"""One way to hide credentials in any text: `config show`, log records, error messages, audit rows.

Three things are masked with `***`: passwords (and bare tokens) in a URL's userinfo, the values of
secret-named query parameters (`?api_key=`, `&token=`, ...), and known secret values wherever they
appear (the keys in the secret environment variables, plus what `register_secrets` was told, e.g.
the passwords of configured URLs), so a key echoed back by a server is masked too.
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any, overload
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

MASK = "***"
# Environment variables that hold secrets: masked wherever their values appear; `config show`
# reports only whether each is set.
SECRET_ENV_VARS = (
    "OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
    "MOONSHOT_API_KEY",
    "TUSHARE_TOKEN",
    "BOCHA_API_KEY",
    "TAVILY_API_KEY",
)
# Shorter known values would mask ordinary words; URL passwords are masked by position anyway.
MIN_SECRET_CHARS = 6

_SECRET_NAME_PARTS = (
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "auth",
    "signature",
    "credential",
)
_SECRET_NAMES_EXACT = {"sig", "pass", "code"}
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]+")
# a query fragment outside a full URL: `?api_key=...`, `&token=...`
_QUERY_PAIR = re.compile(r"(?<=[?&;])([A-Za-z0-9_.\-\[\]]+)=([^&;#\s\"'<>]*)")
_BEARER = re.compile(r"(?i)\b(Bearer\s+)[A-Za-z0-9._~+/=\-]{6,}")
_BASIC = re.compile(r"\b(Basic\s+)([A-Za-z0-9+/]{6,}={0,2})")
_AUTH_HEADER = re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?(?:[A-Za-z]+\s+)?)([^\s\"',;]+)")
# `api_key: xyz`, `"token": "xyz"`, `password=xyz` (exact names only: `prompt_tokens=` is no secret)
_NAMED_VALUE = re.compile(
    r"(?i)([\"']?\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|"
    r"client[_-]?secret|secret|password|passwd|pwd)[\"']?\s*[:=]\s*[\"']?)([^\s\"',;&}]+)"
)

_registered: set[str] = set()
_lock = threading.Lock()


def is_secret_name(name: str) -> bool:
    """Whether a query parameter (or field) name says that its value is a credential."""
    lowered = name.lower()
    return lowered in _SECRET_NAMES_EXACT or any(part in lowered for part in _SECRET_NAME_PARTS)


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url)
    except ValueError:  # e.g. an unbalanced IPv6 bracket: fall back to the text patterns
        return None


def redact_url(url: str) -> str:
    """The URL with its userinfo password (or a bare token as userinfo) and secret query values masked.

    `https://user:pw@host/x?api_key=k&q=1` -> `https://user:***@host/x?api_key=***&q=1`; a URL
    without credentials comes back unchanged, character for character.
    """
    parts = _split(url)
    if parts is None:
        return _QUERY_PAIR.sub(_mask_pair, re.sub(r"//[^/@\s]*@", f"//{MASK}@", url))
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, has_password, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if has_password else f"{MASK}@{host}"
    query = _QUERY_PAIR.sub(_mask_pair, "?" + parts.query)[1:] if parts.query else parts.query
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _mask_pair(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"{name}={MASK}" if is_secret_name(name) and match.group(2) else match.group(0)


def _mask_basic(match: re.Match[str]) -> str:
    """`Basic <base64 of user:password>` -> `Basic ***`; "Basic Materials" stays (not user:password)."""
    try:
        decoded = base64.b64decode(match.group(2), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return match.group(0)
    return match.group(1) + MASK if ":" in decoded else match.group(0)


def url_secrets(url: str | None) -> list[str]:
    """The credentials inside a URL (password, bare-token userinfo, secret query values), raw and decoded."""
    parts = _split(url) if url else None
    if parts is None:
        return []
    found: list[str] = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        user, has_password, password = userinfo.partition(":")
        found.append(password if has_password else user)
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if value and is_secret_name(name):
            found.append(value)
    return [v for raw in found for v in {raw, unquote(raw)} if v]


def register_secrets(*values: str | None) -> None:
    """Remember secret values to mask from now on in this process (keys read, URL passwords)."""
    with _lock:
        _registered.update(v for v in values if v and len(v) >= MIN_SECRET_CHARS)


def secret_env_values(names: Iterable[str] | None = None) -> list[str]:
    """The values of the secret environment variables (SECRET_ENV_VARS unless `names` is given)."""
    if names is None:
        names = SECRET_ENV_VARS
    return [v for v in (os.environ.get(n, "").strip() for n in names) if len(v) >= MIN_SECRET_CHARS]


def known_secrets() -> list[str]:
    """Every secret value this process knows of, longest first (so no prefix is masked alone)."""
    with _lock:
        values = set(_registered)
    values.update(secret_env_values())
    return sorted(values, key=len, reverse=True)


@overload
def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str: ...
@overload
def redact_text(text: None, secrets: Iterable[str | None] = ()) -> None: ...


def redact_text(text: str | None, secrets: Iterable[str | None] = ()) -> str | None:
    """`text` with the given and the known secret values, URL credentials and secret-named values masked."""
    if not text or not isinstance(text, str):
        return text
    values = sorted({s for s in secrets if s} | set(known_secrets()), key=len, reverse=True)
    for value in values:
        if value in text:
            text = text.replace(value, MASK)
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _QUERY_PAIR.sub(_mask_pair, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    text = _BASIC.sub(_mask_basic, text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + MASK, text)
    return _NAMED_VALUE.sub(lambda m: m.group(1) + MASK, text)


def redact_data(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A JSON-like structure with `redact_text` applied to every string in it (keys stay)."""
    secrets = tuple(secrets)
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {k: redact_data(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v, secrets) for v in value]
    return value


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like structure (to find URL-valued settings wherever they are)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)
