"""NotificationService: deliver a digest to channels, once each, with retries, every attempt recorded.

A delivery of a digest to a channel is keyed by (channel, digest hash): one that was sent is not sent
again (a rerun of a run sends nothing twice). Failures are retried with exponential backoff
(tenacity) while the channel says it is worth it (a network error, a 5xx, a 429); every attempt is a
row of `notification_deliveries` with its error redacted. A channel whose last FAILING_AFTER
deliveries failed is "failing" in `channels()`, which `notify list` and `schedule list` show.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from stockdesk.notifications.application.sample import sample_digest
from stockdesk.notifications.domain.delivery import (
    ChannelHealth,
    ChannelStatus,
    DeliveryAttempt,
    DeliveryError,
    DeliveryLog,
    DeliveryResult,
    health,
)
from stockdesk.notifications.domain.digest import Digest
from stockdesk.shared.errors import BadRequestException, NotFoundException, one_line
from stockdesk.shared.redact import redact_text

logger = logging.getLogger(__name__)
HEALTH_WINDOW = 50  # final outcomes read per channel for its health


@dataclass(frozen=True)
class Channel:
    """A configured channel: what `notify list` shows of it and how it sends (raises DeliveryError)."""

    name: str
    type: str
    target: str  # no secret in it
    secrets: Mapping[str, bool]  # environment variable -> set or not
    send: Callable[[Digest], None]


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    backoff_seconds: float = 2.0  # waits 2, 4, 8 ... seconds between attempts
    max_wait_seconds: float = 60.0


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, DeliveryError) and exc.retryable


class NotificationService:
    def __init__(
        self,
        channels: Mapping[str, Channel],
        log: DeliveryLog,
        *,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        public_url: str | None = None,
    ):
        self._public_url = public_url.rstrip("/") if public_url else None
        self._channels = dict(channels)
        self._log = log
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock

    def channel(self, name: str) -> Channel:
        """The channel `name`, or a one-line 400 naming the configured ones."""
        if name not in self._channels:
            known = ", ".join(sorted(self._channels)) or "none is configured in stockdesk.toml"
            raise NotFoundException(f"no notification channel {name!r} ({known})", code="UNKNOWN_CHANNEL")
        return self._channels[name]

    def channels(self, *, read_health: bool = True) -> list[ChannelStatus]:
        """Every configured channel with its secrets (set or not) and its health; `read_health=False`
        leaves the delivery records unread (a doctor run on a store whose schema is not at head)."""
        return [
            ChannelStatus(
                name=c.name, type=c.type, target=c.target, secrets=dict(c.secrets),
                health=health(self._log.final(c.name, HEALTH_WINDOW), self._log.last_success(c.name))
                if read_health else ChannelHealth(),
            )
            for c in sorted(self._channels.values(), key=lambda c: c.name)
        ]  # fmt: skip

    def channel_health(self) -> dict[str, ChannelHealth]:
        """Each channel's health by name (what `schedule list` shows beside a schedule's channels)."""
        return {status.name: status.health for status in self.channels()}

    def report_url(self, path: str) -> str | None:
        """The public link of a report at `path` under the configured `public_url` (None when it is
        not set: the digest then has no link)."""
        return f"{self._public_url}/{path.lstrip('/')}" if self._public_url else None

    def deliver(self, digest: Digest, channels: list[str] | None = None) -> list[DeliveryResult]:
        """Send `digest` to `channels` (None: every configured one), each once: a channel it was sent
        to before answers `already_sent` and is not sent again. One channel's failure never stops
        the others; each ends as a DeliveryResult."""
        names = sorted(self._channels) if channels is None else channels
        chosen = [self.channel(name) for name in names]  # an unknown name fails before anything is sent
        digest_hash = digest.digest_hash()
        results = []
        for channel in chosen:
            if self._log.was_sent(channel.name, digest_hash):
                results.append(DeliveryResult(channel=channel.name, status="already_sent", attempts=0))
                continue
            results.append(self._send(channel, digest, digest_hash))
        return results

    def test(self, name: str, digest: Digest | None = None, *, lang: str = "en") -> DeliveryResult:
        """Send a sample digest (or `digest`) to one channel now, never skipped as sent before; a
        missing secret is a one-line 400 before anything is tried."""
        channel = self.channel(name)
        digest = digest or sample_digest(lang, self._clock().date())
        missing = [env for env, present in channel.secrets.items() if not present]
        if missing:
            raise BadRequestException(
                f"channel {name!r} needs the environment variable {', '.join(missing)}, which is not set",
                code="MISSING_SECRET",
            )
        return self._send(channel, digest, digest.digest_hash())

    def _record(
        self, channel: str, digest: Digest, digest_hash: str, attempt: int, status: str, error: str | None
    ) -> None:
        self._log.add(
            DeliveryAttempt(
                channel=channel, run_id=digest.run, digest_hash=digest_hash, attempt=attempt,
                status=status,  # type: ignore[arg-type]
                error=redact_text(error), sent_at=self._clock(),
            )
        )  # fmt: skip

    def _send(self, channel: Channel, digest: Digest, digest_hash: str) -> DeliveryResult:
        policy = self._retry
        retrying = Retrying(
            stop=stop_after_attempt(policy.attempts),
            wait=wait_exponential(multiplier=policy.backoff_seconds, max=policy.max_wait_seconds),
            retry=retry_if_exception(_retryable),
            sleep=self._sleep,
            reraise=True,
        )
        tried = 0
        try:
            for attempt in retrying:
                with attempt:
                    tried = attempt.retry_state.attempt_number
                    self._attempt(channel, digest, digest_hash, tried)
        except DeliveryError as exc:
            logger.warning(
                "notification to %s failed after %d attempts: %s", channel.name, tried, exc.message
            )
            return DeliveryResult(channel=channel.name, status="failed", attempts=tried, error=exc.message)
        logger.info("notification %s sent to %s", digest.run, channel.name)
        return DeliveryResult(channel=channel.name, status="sent", attempts=tried)

    def _attempt(self, channel: Channel, digest: Digest, digest_hash: str, number: int) -> None:
        """One try, recorded: sent, or failed (`retrying` when another try follows)."""
        try:
            channel.send(digest)
        except Exception as exc:  # every failure is recorded; an unexpected one is not retried
            error = exc if isinstance(exc, DeliveryError) else DeliveryError(one_line(exc), retryable=False)
            last = not error.retryable or number >= self._retry.attempts
            self._record(
                channel.name, digest, digest_hash, number, "failed" if last else "retrying", error.message
            )
            raise error from exc
        self._record(channel.name, digest, digest_hash, number, "sent", None)
