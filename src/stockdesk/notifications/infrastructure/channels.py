"""The configured channels (`[notify.channels.<name>]`) as the service's Channels.

Secrets are read from the environment when a message is sent (so a variable set later counts), and
registered with the redaction the moment they are read: a webhook's whole URL, the credentials in
it (its query's keys and tokens, and the last path segment, which is the hook's id on Feishu and
Slack), a bot token, a signing secret and an SMTP password never reach a log, an error or a record.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from urllib.parse import urlsplit

from stockdesk.notifications.application import Channel, DeliveryError, Digest, digest_text
from stockdesk.notifications.infrastructure import formats, senders
from stockdesk.shared.config import NotifyChannelConfig, Settings
from stockdesk.shared.redact import register_secrets, url_secrets

HOOK_ID_CHARS = 8  # a path segment this long or longer at the end of a webhook URL is its credential


def secret(env: str) -> str:
    """The value of `env`, registered for redaction; a missing one is a DeliveryError (not retried)."""
    value = os.environ.get(env, "").strip()
    if not value:
        raise DeliveryError(f"the environment variable {env} is not set", retryable=False)
    register_secrets(value)
    if "://" in value:
        register_secrets(*url_secrets(value))
        last = urlsplit(value).path.rstrip("/").rsplit("/", 1)[-1]
        if len(last) >= HOOK_ID_CHARS:
            register_secrets(last)
    return value


def _optional(env: str | None) -> str | None:
    return secret(env) if env else None


def _email(config: NotifyChannelConfig) -> Callable[[Digest], None]:
    def send(digest: Digest) -> None:
        text = digest_text(digest)
        senders.send_email(
            host=str(config.host), port=config.port, sender=str(config.from_address), to=config.to,
            subject=text.heading, text=text.plain(), html=formats.email_html(text),
            username=config.username, password=_optional(config.password_env),
            starttls=config.starttls, ca_file=str(config.ca_file) if config.ca_file else None,
            timeout=config.timeout_seconds,
        )  # fmt: skip

    return send


def _webhook(config: NotifyChannelConfig) -> Callable[[Digest], None]:
    platform, timeout = config.type, config.timeout_seconds

    def send(digest: Digest) -> None:
        if config.type == "telegram":
            url = f"{config.api_base.rstrip('/')}/bot{secret(str(config.token_env))}/sendMessage"
            payload, check = formats.telegram(digest, str(config.chat_id)), senders.telegram_check
        else:
            url = secret(str(config.url_env))
            payload, check = _payload(config, digest, url)
            if config.type == "dingtalk":
                url = senders.dingtalk_url(url, _optional(config.secret_env))
        senders.post_json(url, payload, check, timeout=timeout, platform=platform)

    return send


def _payload(config: NotifyChannelConfig, digest: Digest, url: str) -> tuple[dict, senders.Check]:  # type: ignore[type-arg]
    if config.type == "wecom":
        return formats.wecom(digest), senders.errcode_check
    if config.type == "dingtalk":
        return formats.dingtalk(digest), senders.errcode_check
    if config.type == "feishu":
        payload = senders.feishu_signed(formats.feishu(digest, config.msg_type), _optional(config.secret_env))
        return payload, senders.feishu_check
    if config.type == "slack":
        return formats.slack(digest), senders.slack_check
    return formats.generic(digest), senders.no_check


def _target(config: NotifyChannelConfig) -> str:
    """Where the channel sends, without a secret: the SMTP server and addresses, or the variable
    that holds the URL (the URL is the credential)."""
    if config.type == "email":
        return f"{config.host}:{config.port} -> {', '.join(config.to)}"
    if config.type == "telegram":
        return f"{config.api_base} chat {config.chat_id}"
    return f"${config.url_env}"


def build_channels(settings: Settings) -> dict[str, Channel]:
    channels = {}
    for name, config in settings.notify.channels.items():
        send = _email(config) if config.type == "email" else _webhook(config)
        channels[name] = Channel(
            name=name, type=config.type, target=_target(config),
            secrets={env: bool(os.environ.get(env, "").strip()) for env in config.secret_envs()},
            send=send,
        )  # fmt: skip
    return channels
