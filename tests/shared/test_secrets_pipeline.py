"""No secret leaks from a real run: every file under STOCKDESK_HOME and every DB text cell is clean.

`stockdesk analyze` runs in a subprocess through the real `main()` (so logging is configured the
real way) with every kind of secret configured: keys in the environment, passwords and `?api_key=`
tokens in the LLM, alias and search URLs. Its remote providers all fail: one refuses connections,
the others are a hostile local server that echoes the credentials it received into its error
bodies. A scripted model answers after them, so the analysis completes. `llm ping` against the
echoing alias then fails with a traceback (logged) whose cause quotes the echoed body.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _secret(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:16]}"


class EchoHandler(BaseHTTPRequestHandler):
    """A server that fails every request and quotes its path, headers and body back (worst case)."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
        auth = self.headers.get("Authorization", "")
        basic = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else ""
        echo = f"denied {self.path} auth={auth} basic={basic} body={body[:120]}"
        EchoHandler.seen.append(echo)
        path = self.path
        status = 400 if "/llm400" in path else 500 if "/llm500" in path else 401 if "/bocha" in path else 403
        payload = json.dumps({"error": {"message": echo}, "message": echo, "msg": echo}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    EchoHandler.seen = []
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _refused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _analyze_main() -> None:
    """Run in the subprocess: the real container and `main()`, with a scripted model after the remotes."""
    import stockdesk.entrypoints.cli as entry
    from stockdesk.entrypoints.container import AppContainer
    from stockdesk.llm_platform.application.llm_service import ProviderRoute
    from stockdesk.llm_platform.container import build_llm_service
    from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
    from stockdesk.shared.config import get_settings
    from tests.coordinator.support import AS_OF, SYMBOL, Router, add_news
    from tests.research.support import populate_store

    settings = get_settings()
    container = AppContainer(settings)
    populate_store(container.database, SYMBOL)
    add_news(container)
    scripted = ProviderRoute(alias="scripted", provider=ScriptedProvider([Router()]), priority=1000)
    container.__dict__["llm_service"] = build_llm_service(
        settings, container.database, extra_routes=[scripted]
    )
    entry._container = container
    sys.argv = ["stockdesk", "analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--out", sys.argv[1]]
    entry.main()


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **env}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=full_env, timeout=300, cwd=ROOT
    )


def leaks_in_files(home: Path, secrets: dict[str, str]) -> list[str]:
    """`file: SECRET_NAME` for every secret value found in the bytes of any file under home."""
    found = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(home)}: {name}" for name, v in secrets.items() if v.encode() in data]
    return found


def leaks_in_database(db_file: Path, secrets: dict[str, str]) -> list[str]:
    """`table.column: SECRET_NAME` for every secret value in any cell of any table (text or blob)."""
    found = []
    with sqlite3.connect(db_file) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for column, value in zip(columns, row, strict=True):
                    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                    found += [f"{table}.{column}: {n}" for n, v in secrets.items() if v in text]
    return sorted(set(found))


def test_a_full_run_with_failing_providers_leaves_no_secret_in_home_or_database(
    isolated_home: Path, tmp_path: Path, echo_port: int
) -> None:
    secrets = {
        "OPENAI_API_KEY": _secret("sk-openai"),
        "DEEPSEEK_API_KEY": _secret("sk-deepseek"),
        "TUSHARE_TOKEN": _secret("tushare"),
        "BOCHA_API_KEY": _secret("sk-bocha"),
        "TAVILY_API_KEY": _secret("tvly"),
        "llm url password": _secret("llmPass"),
        "llm url api_key": _secret("llmQuery"),
        "alias url password": _secret("aliasPass"),
        "alias url key": _secret("aliasQuery"),
        "strict alias api_key": _secret("strictQuery"),
        "searxng password": _secret("sxPass"),
        "searxng token": _secret("sxToken"),
        "tavily url password": _secret("tavilyPass"),
    }
    # httpx sends URL credentials as `Basic base64(user:password)`: that form must not leak either
    secrets["alias basic auth"] = base64.b64encode(f"deep:{secrets['alias url password']}".encode()).decode()
    echo, refused = f"127.0.0.1:{echo_port}", f"127.0.0.1:{_refused_port()}"
    config = tmp_path / "conf" / "stockdesk.toml"  # outside home: the file itself holds secrets
    config.parent.mkdir()
    config.write_text(
        f"""
[[llm_aliases]]
name = "deep"
base_url = "http://deep:{secrets["alias url password"]}@{echo}/llm500/v1?key={secrets["alias url key"]}"
model = "deepseek-chat"
api_key_env = "DEEPSEEK_API_KEY"
priority = 10

[[llm_aliases]]
name = "strict"
base_url = "http://{echo}/llm400/v1?api_key={secrets["strict alias api_key"]}"
model = "strict-model"
api_key_env = "DEEPSEEK_API_KEY"
priority = 2000
""",
        encoding="utf-8",
    )
    env = {name: value for name, value in secrets.items() if name.isupper()} | {
        "STOCKDESK_CONFIG": str(config),
        "STOCKDESK_LLM_BASE_URL": (
            f"http://llm:{secrets['llm url password']}@{refused}/v1?api_key={secrets['llm url api_key']}"
        ),
        "STOCKDESK_LLM_MODEL": "gpt-test",
        "STOCKDESK_LLM_MAX_RETRIES": "0",
        "STOCKDESK_LOG_LEVEL": "DEBUG",
        "SEARXNG_URL": f"http://sx:{secrets['searxng password']}@{echo}/sx?token={secrets['searxng token']}",
        "STOCKDESK_BOCHA_BASE_URL": f"http://{echo}/bocha",  # no userinfo: httpx would send it, not the key
        "STOCKDESK_TAVILY_BASE_URL": f"http://tavily:{secrets['tavily url password']}@{refused}",
        "STOCKDESK_SEARCH_PROVIDERS": '["searxng", "bocha", "tavily", "local"]',
    }
    report = isolated_home / "reports" / "analysis.md"

    analyze = _run(["-c", "from tests.shared.test_secrets_pipeline import _analyze_main; _analyze_main()",
                    str(report)], env)  # fmt: skip
    assert analyze.returncode == 0, analyze.stderr[-3000:]
    ping = _run(["-m", "stockdesk", "llm", "ping", "--alias", "strict"], env)
    assert ping.returncode == 1 and "strict refused the request (400)" in ping.stderr
    shown = _run(["-m", "stockdesk", "config", "show", "--json"], env)
    assert shown.returncode == 0, shown.stderr

    # the secrets really were in play: the hostile server received (and echoed) keys and passwords
    seen = "\n".join(EchoHandler.seen)
    echoed = ("DEEPSEEK_API_KEY", "BOCHA_API_KEY", "alias url key", "alias url password", "searxng password")
    for name in echoed:
        assert secrets[name] in seen, name
    # ... and the failures were recorded where a leak would land
    db_file = isolated_home / "stockdesk.db"
    with sqlite3.connect(db_file) as conn:
        failed_aliases = {r[0] for r in conn.execute("SELECT alias FROM llm_calls WHERE status = 'error'")}
        failed_search = {
            r[0] for r in conn.execute("SELECT provider FROM search_calls WHERE status = 'error'")
        }
    assert {"default", "deep", "strict"} <= failed_aliases
    assert {"searxng", "bocha", "tavily"} <= failed_search
    log = (isolated_home / "logs" / "stockdesk.log").read_text(encoding="utf-8")
    assert "Traceback" in log and "BadRequestError" in log and "***" in log
    assert report.is_file()

    assert leaks_in_files(isolated_home, secrets) == []
    assert leaks_in_database(db_file, secrets) == []
    for output in (analyze, ping, shown):
        assert [n for n, v in secrets.items() if v in output.stdout + output.stderr] == []
    settings = json.loads(shown.stdout)
    assert settings["llm_base_url"].startswith(f"http://llm:***@{refused}/v1?api_key=***")
    assert settings["searxng_url"] == f"http://sx:***@{echo}/sx?token=***"
