"""API keys: generated with 256 bits of randomness, shown once, stored only as their sha256.

A key is `sdk_` + 43 URL-safe characters. Being random (not a password), a plain sha256 is a safe
digest at rest: it cannot be reversed or brute-forced, and lookups stay one indexed query.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from pydantic import BaseModel

KEY_PREFIX = "sdk_"


def new_key() -> str:
    """A fresh API key (the only time it exists in clear)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """What the store keeps and looks keys up by."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiKeyRecord(BaseModel):
    id: str
    name: str
    prefix: str  # the first characters of the key, to tell keys apart in `keys list`
    created_at: datetime
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None
