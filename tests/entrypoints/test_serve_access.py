"""`stockdesk serve` as a user runs it: beyond loopback every call needs a key, foreign Hosts get 400,
SIGTERM stops it. A real server process on a free port over a real SQLite store."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

from stockdesk.shared.db import Database
from tests.entrypoints.server_process import free_port, running, stockdesk
from tests.research.support import populate_store

STOP_WITHIN = 15.0  # "within seconds": a hung shutdown fails, a slow machine does not


def test_serve_on_all_interfaces_refuses_unauthenticated_calls(tmp_path: Path) -> None:
    home = tmp_path / "home"
    created = stockdesk(home, "keys", "create", "--name", "laptop")
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip().splitlines()[-1]
    assert key.startswith("sdk_") and len(key) > 40
    listed = stockdesk(home, "keys", "list", "--json")
    assert key not in listed.stdout and '"name": "laptop"' in listed.stdout
    database = Database(f"sqlite:///{home / 'stockdesk.db'}")
    populate_store(database)
    database.dispose()
    port = free_port()
    command = [sys.executable, "-m", "stockdesk", "serve", "--host", "0.0.0.0", "--port", str(port)]
    with running(command, home, port) as server:
        stock = f"{server.url}/api/v1/stocks/600001.SH"
        refused = httpx.get(stock)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "API_KEY_REQUIRED"
        assert httpx.get(f"{server.url}/api/v1/coordinator/research/sessions").status_code == 401
        allowed = httpx.get(stock, headers={"Authorization": f"Bearer {key}"})
        assert allowed.status_code == 200 and allowed.json()["symbol"] == "600001.SH"
        assert httpx.get(stock, headers={"X-API-Key": key}).status_code == 200
        evil = httpx.get(stock, headers={"Authorization": f"Bearer {key}", "Host": "evil.example"})
        assert evil.status_code == 400 and evil.json()["error"]["code"] == "HOST_NOT_ALLOWED"
        assert httpx.get(f"{server.url}/api/v1/health").status_code == 200
        server.stop(STOP_WITHIN)
        assert "Application shutdown complete" in server.output()  # a graceful stop, not a kill
    key_id = stockdesk(home, "keys", "list", "--json").stdout.split('"id": "')[1].split('"')[0]
    assert stockdesk(home, "keys", "revoke", key_id).returncode == 0
    with running(command, home, port) as server:
        revoked = httpx.get(
            f"{server.url}/api/v1/stocks/600001.SH", headers={"Authorization": f"Bearer {key}"}
        )
        assert revoked.status_code == 401 and revoked.json()["error"]["code"] == "API_KEY_INVALID"


def test_no_auth_is_refused_beyond_loopback(tmp_path: Path) -> None:
    result = stockdesk(tmp_path / "home", "serve", "--host", "0.0.0.0", "--no-auth")
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: --no-auth is for loopback only")
    assert len(result.stderr.strip().splitlines()) == 1


def test_revoking_an_unknown_key_is_a_clear_error(tmp_path: Path) -> None:
    result = stockdesk(tmp_path / "home", "keys", "revoke", "nope")
    assert result.returncode == 2 and "no single API key with id 'nope'" in result.stderr
