"""Sending: SMTP with STARTTLS (smtplib), and JSON webhooks (httpx) with each platform's success signal.

An HTTP answer is a failure when its status is not 2xx, and also when a 200 says so in its body:
WeCom and DingTalk `errcode` != 0, Feishu `code` != 0, Telegram `ok: false`, Slack a body other than
`ok`. A network error, a 5xx or a 429 is worth another try; every other failure is not.
Signatures (as the platforms document them): Feishu puts `timestamp` (seconds) and `sign` =
base64(HMAC-SHA256(key = "{timestamp}\\n{secret}", message = "")) in the body; DingTalk adds the
query parameters `timestamp` (milliseconds) and `sign` = base64(HMAC-SHA256(key = secret, message =
"{timestamp}\\n{secret}")), URL-encoded.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import smtplib
import ssl
import time
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any
from urllib.parse import quote_plus

import httpx

from stockdesk.notifications.application import DeliveryError
from stockdesk.shared.logging import RedactingFilter

# httpx logs every request's URL at INFO, and a webhook's URL is its credential: its records are
# redacted on the logger itself, so no handler (ours, a test's, an embedding program's) sees the URL.
_HTTPX = logging.getLogger("httpx")
if not any(isinstance(f, RedactingFilter) for f in _HTTPX.filters):
    _HTTPX.addFilter(RedactingFilter())

Check = Callable[[httpx.Response], str | None]  # the failure the body reports, or None


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def errcode_check(response: httpx.Response) -> str | None:
    """WeCom and DingTalk: `errcode` 0 is success."""
    body = _json(response)
    code = body.get("errcode")
    return None if code == 0 else f"errcode {code}: {body.get('errmsg', '')}"


def feishu_check(response: httpx.Response) -> str | None:
    body = _json(response)
    code = body.get("code", body.get("StatusCode"))
    return None if code == 0 else f"code {code}: {body.get('msg', body.get('StatusMessage', ''))}"


def telegram_check(response: httpx.Response) -> str | None:
    body = _json(response)
    return None if body.get("ok") is True else f"ok false: {body.get('description', '')}"


def slack_check(response: httpx.Response) -> str | None:
    text = response.text.strip()
    return None if text == "ok" else f"answered {text[:200]!r}"


def no_check(response: httpx.Response) -> str | None:
    return None


def post_json(url: str, payload: dict[str, Any], check: Check, *, timeout: float, platform: str) -> None:
    """POST `payload`; a DeliveryError unless the platform took it."""
    try:
        response = httpx.post(url, json=payload, timeout=timeout)
    except httpx.HTTPError as exc:
        raise DeliveryError(f"{platform}: {type(exc).__name__}: {exc}", retryable=True) from exc
    status = response.status_code
    if not 200 <= status < 300:
        raise DeliveryError(
            f"{platform} answered HTTP {status}: {response.text[:200]}",
            retryable=status == 429 or status >= 500,
        )
    problem = check(response)
    if problem is not None:
        raise DeliveryError(f"{platform} refused the message: {problem}", retryable=False)


def feishu_sign(secret: str, timestamp: int) -> str:
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode("ascii")


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    message = f"{timestamp_ms}\n{secret}".encode()
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return quote_plus(base64.b64encode(digest).decode("ascii"))


def feishu_signed(payload: dict[str, Any], secret: str | None, now: float | None = None) -> dict[str, Any]:
    if not secret:
        return payload
    timestamp = int(now if now is not None else time.time())
    return {"timestamp": str(timestamp), "sign": feishu_sign(secret, timestamp), **payload}


def dingtalk_url(url: str, secret: str | None, now: float | None = None) -> str:
    if not secret:
        return url
    timestamp_ms = int((now if now is not None else time.time()) * 1000)
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}timestamp={timestamp_ms}&sign={dingtalk_sign(secret, timestamp_ms)}"


def send_email(
    *,
    host: str,
    port: int,
    sender: str,
    to: list[str],
    subject: str,
    text: str,
    html: str,
    username: str | None,
    password: str | None,
    starttls: bool,
    ca_file: str | None,
    timeout: float,
) -> None:
    """One message with a text/plain and a text/html part, over STARTTLS (the certificate checked
    against the system's CAs, or `ca_file`)."""
    message = EmailMessage()
    message["Subject"], message["From"], message["To"] = subject, sender, ", ".join(to)
    message.set_content(text, charset="utf-8")
    message.add_alternative(html, subtype="html", charset="utf-8")
    try:
        with smtplib.SMTP(host, port, timeout=timeout) as smtp:
            smtp.ehlo()
            if starttls:
                smtp.starttls(context=ssl.create_default_context(cafile=ca_file))
                smtp.ehlo()
            if username:
                smtp.login(username, password or "")
            smtp.send_message(message)
    except (smtplib.SMTPAuthenticationError, smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused) as exc:
        raise DeliveryError(f"SMTP {host}:{port} refused: {exc}", retryable=False) from exc
    except smtplib.SMTPNotSupportedError as exc:
        raise DeliveryError(f"SMTP {host}:{port}: {exc}", retryable=False) from exc
    except ssl.SSLCertVerificationError as exc:
        raise DeliveryError(f"SMTP {host}:{port}: certificate not trusted: {exc}", retryable=False) from exc
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryError(f"SMTP {host}:{port}: {type(exc).__name__}: {exc}", retryable=True) from exc


def dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False)
