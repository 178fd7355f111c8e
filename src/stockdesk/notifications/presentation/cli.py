"""`stockdesk notify list` (channels, their targets, secrets set or not, health) and `notify test`."""

from __future__ import annotations

from collections.abc import Callable

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.notifications.application import ChannelStatus, NotificationService
from stockdesk.shared.errors import BadRequestException, ServiceUnavailableError


def health_words(status: ChannelStatus) -> str:
    """ok, failing (N failures in a row), never sent, or N failures since the last success."""
    health = status.health
    if health.failing:
        return f"failing ({health.consecutive_failures} failed deliveries in a row)"
    if health.consecutive_failures:
        return f"{health.consecutive_failures} failed since the last success"
    return "ok" if health.last_success else "never sent"


def _tries(count: int) -> str:
    return "1 attempt" if count == 1 else f"{count} attempts"


def build_notify_cli(get_service: Callable[[], NotificationService]) -> typer.Typer:
    app = typer.Typer(
        help="Notification channels (stockdesk.toml [notify.channels.<name>]).", no_args_is_help=True
    )

    @app.command("list")
    def list_channels() -> None:
        """Each channel: its type, where it sends, its secrets (set or not set) and its health."""
        statuses = get_service().channels()
        if not statuses:
            typer.echo("no notification channels: add [notify.channels.<name>] to stockdesk.toml")
            return
        table = Table(
            "channel", "type", "target", "secrets", "health", "last success", title="notification channels"
        )
        for s in statuses:
            secrets = ", ".join(f"{env} {'set' if ok else 'not set'}" for env, ok in s.secrets.items()) or "-"
            last = s.health.last_success.isoformat(timespec="seconds") if s.health.last_success else "-"
            table.add_row(s.name, s.type, s.target, secrets, health_words(s), last)
        Console(width=200).print(table)

    @app.command("test")
    def test(
        channel: str = typer.Argument(..., help="A channel name from `notify list`."),
        lang: str = typer.Option("en", "--lang", help="The sample's language: en or zh."),
    ) -> None:
        """Send a small sample digest to CHANNEL now (an unknown channel or a missing secret: exit 2)."""
        if lang not in ("en", "zh"):
            raise BadRequestException(f"--lang {lang!r}: en or zh", code="BAD_LANGUAGE")
        result = get_service().test(channel, lang=lang)
        if result.status != "sent":
            raise ServiceUnavailableError(
                f"{channel}: not delivered ({_tries(result.attempts)}): {result.error}",
                code="DELIVERY_FAILED",
            )
        typer.echo(f"sent a sample digest to {channel} ({_tries(result.attempts)})")

    return app
