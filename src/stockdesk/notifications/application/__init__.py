"""Application interface of notifications: other contexts (the scheduler) deliver digests through this."""

from stockdesk.notifications.application.changes import changes_between
from stockdesk.notifications.application.digest_text import DigestText, digest_text, fit
from stockdesk.notifications.application.notification_service import Channel, NotificationService, RetryPolicy
from stockdesk.notifications.application.sample import sample_digest
from stockdesk.notifications.domain.delivery import (
    FAILING_AFTER,
    ChannelHealth,
    ChannelStatus,
    DeliveryAttempt,
    DeliveryError,
    DeliveryLog,
    DeliveryResult,
)
from stockdesk.notifications.domain.digest import ChangeKind, Digest, DigestChange, DigestRow

__all__ = [
    "FAILING_AFTER",
    "ChangeKind",
    "Channel",
    "ChannelHealth",
    "ChannelStatus",
    "DeliveryAttempt",
    "DeliveryError",
    "DeliveryLog",
    "DeliveryResult",
    "Digest",
    "DigestChange",
    "DigestRow",
    "DigestText",
    "NotificationService",
    "RetryPolicy",
    "changes_between",
    "digest_text",
    "fit",
    "sample_digest",
]
