"""What a delivery attempt is, what a delivery ends as, and a channel's health."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from stockdesk.shared.errors import StockdeskError

FAILING_AFTER = 3  # a channel whose last 3 deliveries failed is "failing"

AttemptStatus = Literal["sent", "retrying", "failed"]


class DeliveryError(StockdeskError):
    """A channel refused or could not take a message. `retryable`: a network error, a 5xx or a 429
    (worth another try); a 4xx, a platform's own error code or a missing secret is not. The message
    is redacted on the way in (StockdeskError)."""

    code = "DELIVERY_FAILED"
    http_status = 502

    def __init__(self, message: str, *, retryable: bool):
        super().__init__(message)
        self.retryable = retryable


class DeliveryAttempt(BaseModel):
    """One attempt as recorded (`notification_deliveries`): `retrying` is a failed attempt that was
    tried again, `failed` the last failed one of a delivery, `sent` a success."""

    channel: str
    run_id: str
    digest_hash: str
    attempt: int = Field(ge=1)
    status: AttemptStatus
    error: str | None = None
    sent_at: datetime


class DeliveryResult(BaseModel):
    """How one delivery of a digest to one channel ended."""

    channel: str
    status: Literal["sent", "failed", "already_sent"]
    attempts: int = Field(description="attempts made now (0 when it had been sent before)")
    error: str | None = None


class ChannelHealth(BaseModel):
    last_success: datetime | None = None
    consecutive_failures: int = Field(default=0, description="failed deliveries since the last success")
    failing: bool = Field(default=False, description=f"the last {FAILING_AFTER} deliveries all failed")


class ChannelStatus(BaseModel):
    """A configured channel as `notify list` and `schedule list` show it (no secret value in it)."""

    name: str
    type: str
    target: str = Field(description="where it sends, with no secret in it")
    secrets: dict[str, bool] = Field(description="environment variable -> set or not")
    health: ChannelHealth

    @property
    def missing(self) -> list[str]:
        return [name for name, present in self.secrets.items() if not present]


@dataclass(frozen=True)
class DeliveryLog:
    """The delivery records the service reads and writes, handed over as functions (the SQL store's
    bound methods): `add` one attempt, `was_sent` (channel, digest hash), the newest `final`
    outcomes of a channel (sent or failed, newest first, at most n) and its `last_success`."""

    add: Callable[[DeliveryAttempt], None]
    was_sent: Callable[[str, str], bool]
    final: Callable[[str, int], list[DeliveryAttempt]]
    last_success: Callable[[str], datetime | None]


def health(final: list[DeliveryAttempt], last_success: datetime | None) -> ChannelHealth:
    """Failures since the newest success, and failing when the newest FAILING_AFTER all failed."""
    failures = 0
    for outcome in final:
        if outcome.status == "sent":
            break
        failures += 1
    return ChannelHealth(
        last_success=last_success, consecutive_failures=failures, failing=failures >= FAILING_AFTER
    )
