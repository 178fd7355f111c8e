"""The `stockdesk` command as a user runs it: real subprocesses, one-line errors, exit codes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from stockdesk import __version__


def stockdesk(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )


def test_version() -> None:
    result = stockdesk("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"stockdesk {__version__}"


def test_config_show_redacts_secrets() -> None:
    result = stockdesk(
        "config", "show", "--json", env={"OPENAI_API_KEY": "sk-topsecret-abcdef", "STOCKDESK_LLM_MODEL": "m"}
    )
    assert result.returncode == 0, result.stderr
    assert "sk-topsecret-abcdef" not in result.stdout
    assert '"OPENAI_API_KEY": "<set>"' in result.stdout


def test_db_upgrade_creates_the_database_in_home(isolated_home: Path) -> None:
    from stockdesk.shared.db import Database

    head = Database("sqlite://").head_revision()
    result = stockdesk("db", "upgrade")
    assert result.returncode == 0, result.stderr
    assert f"database at revision {head}" in result.stdout
    assert (isolated_home / "stockdesk.db").is_file()
    again = stockdesk("db", "upgrade")
    assert again.returncode == 0 and head in again.stdout


def one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_unknown_alias_is_one_line_and_exit_2() -> None:
    result = stockdesk("llm", "ping", "--alias", "nope")
    assert result.returncode == 2
    line = one_error_line(result)
    assert "unknown LLM alias 'nope'" in line and "local" in line


def test_missing_key_for_a_configured_remote_names_the_variable() -> None:
    result = stockdesk(
        "llm",
        "ping",
        env={
            "STOCKDESK_LLM_BASE_URL": "https://api.deepseek.com",
            "STOCKDESK_LLM_MODEL": "deepseek-chat",
            "STOCKDESK_LLM_API_KEY_ENV": "DEEPSEEK_API_KEY",
        },
    )
    assert result.returncode == 1
    assert "$DEEPSEEK_API_KEY" in one_error_line(result)


def test_unreachable_base_url_says_what_to_check() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    result = stockdesk(
        "llm",
        "ping",
        env={
            "STOCKDESK_LLM_BASE_URL": url,
            "STOCKDESK_LLM_MODEL": "m",
            "STOCKDESK_LLM_API_KEY_ENV": "",
            "STOCKDESK_LLM_MAX_RETRIES": "0",
        },
    )
    assert result.returncode == 1
    line = one_error_line(result)
    assert url in line and "check its base_url" in line


def test_bad_option_is_a_usage_error() -> None:
    result = stockdesk("db", "upgrade", "--bogus")
    assert result.returncode == 2 and "No such option: --bogus" in result.stderr
    assert result.stderr.strip().splitlines() == [one_error_line(result)]
    assert "stockdesk db upgrade --help" in result.stderr
    missing = stockdesk("holdings", "set", "600519.SH")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    assert "Missing option '--quantity'" in missing.stderr and not missing.stdout
    helped = stockdesk("db", "--help")
    assert helped.returncode == 0 and "upgrade" in helped.stdout and not helped.stderr


@pytest.mark.slow
def test_llm_ping_with_the_embedded_model_prints_schema_valid_json() -> None:
    import json

    from stockdesk.llm_platform.application.ping import PingAnswer

    result = stockdesk("llm", "ping", "--json", timeout=600)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    PingAnswer.model_validate(payload["parsed"])
    assert payload["alias"] == "local" and payload["model"].startswith("qwen2.5-coder-1.5b")
    assert payload["prompt_tokens"] > 0 and payload["completion_tokens"] > 0


def test_unexpected_error_is_one_line_pointing_at_the_log(isolated_home: Path) -> None:
    # a file that is not SQLite at all fails deep inside the driver, in no way we anticipate
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "stockdesk.db").write_bytes(b"this is not a database" * 100)
    result = stockdesk("db", "upgrade")
    assert result.returncode == 1
    line = one_error_line(result)
    assert "stockdesk.log" in line
    assert "Traceback" in (isolated_home / "logs" / "stockdesk.log").read_text()
