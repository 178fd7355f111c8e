"""`stockdesk notify list|test` as a user runs them, and the configuration's refusals (one line each)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from stockdesk.shared.config import Settings, settings_error
from tests.notifications.receiver import receiver

HOOK_URL_SECRET = "generic-hook-secret-path-0042"


def stockdesk(
    *args: str, config: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "COLUMNS": "200", "STOCKDESK_CONFIG": str(config), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args], capture_output=True, text=True, env=full, timeout=120
    )


def test_a_secret_written_in_the_toml_is_refused_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "stockdesk.toml"
    config.write_text(
        '[notify.channels.mail]\ntype = "email"\nhost = "smtp.example.org"\nfrom = "a@b.c"\nto = ["d@e.f"]\n'
        'username = "u"\npassword = "hunter2-inline-secret"\n',
        encoding="utf-8",
    )
    result = stockdesk("notify", "list", config=config)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "notify.channels.mail" in lines[0] and "password_env" in lines[0]
    assert "hunter2-inline-secret" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('type = "wecom"\nurl = "https://qyapi.example/send?key=k"\n', "url_env"),
        ('type = "telegram"\ntoken = "123:abc"\nchat_id = "1"\n', "token_env"),
        ('type = "feishu"\nurl_env = "F"\nsecret = "s3cr3t"\n', "secret_env"),
        ('type = "slack"\n', "needs url_env"),
        ('type = "pager"\nurl_env = "P"\n', "type"),
    ],
)
def test_each_bad_channel_names_what_to_fix(
    body: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "stockdesk.toml"
    config.write_text(f"[notify.channels.c]\n{body}", encoding="utf-8")
    monkeypatch.setenv("STOCKDESK_CONFIG", str(config))
    with pytest.raises(ValidationError) as caught:
        Settings()
    line = settings_error(caught.value)
    assert "\n" not in line and "notify.channels.c" in line and words in line, line
    assert "s3cr3t" not in line and "123:abc" not in line


def test_notify_list_shows_secrets_as_set_or_not_and_test_sends_a_sample(tmp_path: Path) -> None:
    with receiver() as got:
        got.default["/generic/" + HOOK_URL_SECRET] = (200, "{}")
        config = tmp_path / "stockdesk.toml"
        config.write_text(
            '[notify.channels.hook]\ntype = "webhook"\nurl_env = "HOOK_URL"\n\n'
            '[notify.channels.tg]\ntype = "telegram"\ntoken_env = "TG_TOKEN_UNSET"\nchat_id = "42"\n',
            encoding="utf-8",
        )
        env = {"HOOK_URL": f"{got.base}/generic/{HOOK_URL_SECRET}", "STOCKDESK_HOME": str(tmp_path / "home")}
        listed = stockdesk("notify", "list", config=config, env=env)
        assert listed.returncode == 0, listed.stderr
        assert "HOOK_URL set" in listed.stdout and "TG_TOKEN_UNSET not set" in listed.stdout
        assert "never sent" in listed.stdout and HOOK_URL_SECRET not in listed.stdout

        sent = stockdesk("notify", "test", "hook", "--lang", "zh", config=config, env=env)
        assert sent.returncode == 0, sent.stderr
        (request,) = got.requests
        assert request.body["digest"]["title"] == "stockdesk 测试消息"
        again = stockdesk("notify", "test", "hook", config=config, env=env)  # a test is never skipped
        assert again.returncode == 0 and len(got.requests) == 2

        after = stockdesk("notify", "list", config=config, env=env)
        assert "ok" in after.stdout.split("hook", 1)[1].splitlines()[0]

        missing = stockdesk("notify", "test", "tg", config=config, env=env)
        assert missing.returncode == 2 and "TG_TOKEN_UNSET" in missing.stderr
        assert len(missing.stderr.strip().splitlines()) == 1
        unknown = stockdesk("notify", "test", "nope", config=config, env=env)
        assert unknown.returncode == 2 and "no notification channel 'nope' (hook, tg)" in unknown.stderr
        assert len(got.requests) == 2
