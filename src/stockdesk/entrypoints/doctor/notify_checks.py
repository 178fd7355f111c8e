"""The notification channels: each configured channel's secrets (set or not in the environment) and,
when the store can be read, whether its recent deliveries keep failing.

Optional: a desk without channels works; a scheduled run's digest to a channel with a missing secret
or a failing endpoint is recorded as failed, and this check says which one and how to fix it before
the next run.
"""

from __future__ import annotations

from stockdesk.entrypoints.doctor.checks import DoctorContext, Finding, Status
from stockdesk.entrypoints.doctor.store_checks import store_not_ready
from stockdesk.notifications.application import ChannelStatus
from stockdesk.notifications.container import NotificationsContainer

CONFIGURE = "add channels under [notify.channels.<name>] in stockdesk.toml (README, Notifications)"


def _line(channel: ChannelStatus, health_read: bool) -> str:
    secrets = ", ".join(
        f"${env} {'set' if present else 'not set'}" for env, present in channel.secrets.items()
    )
    parts = [f"{channel.name}: {channel.type} to {channel.target}", secrets or "no secret"]
    if health_read and channel.health.failing:
        parts.append(f"failing ({channel.health.consecutive_failures} deliveries failed in a row)")
    return ", ".join(parts)


def check_notifications(context: DoctorContext) -> Finding:
    """Each channel with its secrets and health; a missing secret or a failing channel warns."""
    if not context.settings.notify.channels:
        return Finding(Status.OK, "no notification channel is configured", None)
    service = NotificationsContainer(context.settings, context.database).service
    health_read = store_not_ready(context) is None
    channels = service.channels(read_health=health_read)
    found = "\n".join(_line(c, health_read) for c in channels)
    fixes = [
        f"set {', '.join('$' + env for env in c.missing)} for {c.name}" for c in channels if c.missing
    ] + [
        f"{c.name} keeps failing: `stockdesk notify test {c.name}` shows why"
        for c in channels
        if health_read and c.health.failing
    ]
    if fixes:
        return Finding(Status.FAIL, found, "; ".join(fixes))
    return Finding(Status.OK, found)
