"""Composition root of notifications: the configured channels and the SQL delivery records."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cached_property

from stockdesk.notifications.application import NotificationService, RetryPolicy
from stockdesk.notifications.infrastructure.channels import build_channels
from stockdesk.notifications.infrastructure.persistence.delivery_store import SqlDeliveryStore
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database


class NotificationsContainer:
    def __init__(
        self, settings: Settings, database: Database, *, sleep: Callable[[float], None] = time.sleep
    ):
        self._settings = settings
        self._database = database
        self._sleep = sleep

    @cached_property
    def store(self) -> SqlDeliveryStore:
        return SqlDeliveryStore(self._database)

    @cached_property
    def service(self) -> NotificationService:
        notify = self._settings.notify
        return NotificationService(
            build_channels(self._settings),
            self.store.log(),
            retry=RetryPolicy(attempts=notify.attempts, backoff_seconds=notify.backoff_seconds),
            sleep=self._sleep,
            public_url=self._settings.public_url,
        )
