"""Email against a real local SMTP server (aiosmtpd) that requires STARTTLS and a login: the message
arrives with its text and HTML parts and the Chinese text intact; the password is nowhere recorded."""

from __future__ import annotations

import email
import json
import logging
import socket
import ssl
import subprocess
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import default
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.notifications.support import container, digest, write_config

PASSWORD = "smtp-password-8d2k1"


class Inbox:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=default))  # type: ignore[arg-type]
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 Message accepted"


def _authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
    ok = isinstance(data, LoginPassword) and data.login == b"desk" and data.password == PASSWORD.encode()
    return AuthResult(success=ok, handled=False)


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made here with the openssl command."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp(tmp_path: Path) -> Iterator[tuple[Inbox, int, Path]]:
    cert, key = _certificate(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    inbox = Inbox()
    port = _free_port()
    controller = Controller(
        inbox, hostname="127.0.0.1", port=port, tls_context=tls, require_starttls=True,
        authenticator=_authenticate, auth_require_tls=True,
    )  # fmt: skip
    controller.start()
    try:
        yield inbox, port, cert
    finally:
        controller.stop()


def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, port: int, ca_file: Path | None) -> Any:
    monkeypatch.setenv("SMTP_PASSWORD", PASSWORD)
    trust = f'ca_file = "{ca_file}"' if ca_file else ""
    return write_config(
        tmp_path,
        monkeypatch,
        f"""
[notify]
attempts = 2
backoff_seconds = 0

[notify.channels.mail]
type = "email"
host = "127.0.0.1"
port = {port}
username = "desk"
password_env = "SMTP_PASSWORD"
from = "desk@example.org"
to = ["me@example.org", "you@example.org"]
{trust}
""",
    )


def test_the_digest_arrives_with_both_parts_and_the_chinese_intact(
    smtp: tuple[Inbox, int, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    inbox, port, cert = smtp
    caplog.set_level(logging.DEBUG)
    notify = container(_settings(tmp_path, monkeypatch, port, cert))
    (result,) = notify.service.deliver(digest("zh"), ["mail"])
    assert (result.status, result.attempts) == ("sent", 1), result.error
    (message,) = inbox.messages
    assert message["Subject"] == "自选股：2026-11-27"
    assert inbox.envelopes == [("desk@example.org", ["me@example.org", "you@example.org"])]
    assert message.get_content_type() == "multipart/alternative"
    plain = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert "600519 贵州茅台 现为买入（此前为持有）。" in plain
    assert "AAPL 收盘 178.52，已越过止损位 180.00。" in plain
    assert (
        plain.index("与上次运行相比的变化")
        < plain.index("全部标的")
        < plain.index("完整报告：https://desk.example/r/1")
    )
    assert "<th>上涨概率</th>" in html and "<td>贵州茅台</td>" in html
    assert "上涨概率 61%（基于 120 条结论）" in html and "未校准" in html
    assert '<a href="https://desk.example/r/1">完整报告</a>' in html
    records = json.dumps([r.model_dump(mode="json") for r in notify.store.all()])
    assert PASSWORD not in records + caplog.text


def test_an_untrusted_certificate_fails_and_is_not_retried(
    smtp: tuple[Inbox, int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox, port, _cert = smtp
    notify = container(_settings(tmp_path, monkeypatch, port, None))  # the system's CAs only
    (result,) = notify.service.deliver(digest(), ["mail"])
    assert (result.status, result.attempts) == ("failed", 1)
    assert "certificate" in (result.error or "")
    assert inbox.messages == []


def test_a_wrong_password_is_refused_and_never_recorded(
    smtp: tuple[Inbox, int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox, port, cert = smtp
    settings = _settings(tmp_path, monkeypatch, port, cert)
    monkeypatch.setenv("SMTP_PASSWORD", "not-the-password-77")
    notify = container(settings)
    (result,) = notify.service.deliver(digest(), ["mail"])
    assert (result.status, result.attempts) == ("failed", 1)
    assert inbox.messages == []
    assert "not-the-password-77" not in json.dumps([r.model_dump(mode="json") for r in notify.store.all()])
