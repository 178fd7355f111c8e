"""`stockdesk keys create|list|revoke`: API keys for the REST server, stored only as sha256."""

from __future__ import annotations

import json
from collections.abc import Callable

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from stockdesk.shared.errors import NotFoundException


def build_keys_cli(get_store: Callable[[], SqlApiKeyStore]) -> typer.Typer:
    app = typer.Typer(help="API keys for `stockdesk serve` (sent as 'Authorization: Bearer KEY').")

    @app.command("create")
    def create(name: str = typer.Option("default", "--name", help="What the key is for.")) -> None:
        """Create a key; it is printed once, on the last line, and never again."""
        record, key = get_store().create(name)
        typer.echo(f"created key {record.id} ({record.name}); store it now, it is not shown again:")
        typer.echo(key)

    @app.command("list")
    def list_keys(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Keys with their id, name, prefix, creation, last use and revocation (never the key)."""
        records = get_store().list()
        if as_json:
            typer.echo(json.dumps([r.model_dump(mode="json") for r in records], indent=2))
            return
        table = Table("id", "name", "prefix", "created", "last used", "revoked", title="API keys")
        for r in records:
            table.add_row(
                r.id,
                r.name,
                r.prefix + "…",
                f"{r.created_at:%Y-%m-%d %H:%M}",
                f"{r.last_used_at:%Y-%m-%d %H:%M}" if r.last_used_at else "-",
                f"{r.revoked_at:%Y-%m-%d %H:%M}" if r.revoked_at else "-",
            )
        Console().print(table)

    @app.command("revoke")
    def revoke(key_id: str = typer.Argument(..., help="The key's id (or a unique prefix of it).")) -> None:
        """Revoke a key: requests with it get 401 from now on."""
        record = get_store().revoke(key_id)
        if record is None:
            raise NotFoundException(f"no single API key with id {key_id!r} (see `stockdesk keys list`)")
        typer.echo(f"revoked key {record.id} ({record.name})")

    return app
