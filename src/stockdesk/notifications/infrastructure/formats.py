"""Each platform's payload for a digest, fitted to the platform's message limit by cutting rows.

Shapes and limits, as the platforms document them:
- WeCom group robot: `{"msgtype": "markdown", "markdown": {"content": ...}}`, content at most 4096
  bytes of UTF-8.
- Feishu custom bot: `{"msg_type": "post", "content": {"post": {"zh_cn"|"en_us": {"title", "content":
  [[{"tag": "text"|"a", ...}], ...]}}}}` or `{"msg_type": "text", "content": {"text": ...}}`; the
  request body at most 20 KB (kept under 18,000 bytes of JSON). The signature fields are added by
  the sender.
- DingTalk robot: `{"msgtype": "markdown", "markdown": {"title": ..., "text": ...}}` (kept under
  18,000 bytes of text, the request's limit being 20,000).
- Slack incoming webhook: `{"text": fallback, "blocks": [header, section, section, context]}`; a
  section's text at most 3000 characters.
- Telegram `sendMessage`: `{"chat_id", "text", "parse_mode": "HTML"}`, text at most 4096 characters
  (measured before the entities are parsed, so with room to spare).
- A generic webhook gets the digest itself as JSON (no limit).
"""

from __future__ import annotations

import html
import json
from typing import Any

from stockdesk.notifications.application import Digest, DigestText, fit

WECOM_BYTES = 4096
FEISHU_BYTES = 18_000
DINGTALK_BYTES = 18_000
SLACK_SECTION_CHARS = 3000
SLACK_HEADER_CHARS = 150
TELEGRAM_CHARS = 4096


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def _markdown(text: DigestText) -> str:
    """Markdown both robots render: a heading, bullet lines, the link (no tables: WeCom lacks them)."""
    lines = [f"### {text.heading}", f"**{text.changes_title}**", *[f"- {c}" for c in text.changes]]
    lines += [text.more_changes] if text.more_changes else []
    lines += [f"**{text.table_title}**", *[f"- {r}" for r in text.row_lines]]
    lines += [text.more_rows] if text.more_rows else []
    lines += [f"[{text.link_text}]({text.url})"] if text.url else []
    return "\n".join(lines)


def wecom(digest: Digest) -> dict[str, Any]:
    content = _markdown(fit(digest, lambda t: _utf8(_markdown(t)), WECOM_BYTES))
    return {"msgtype": "markdown", "markdown": {"content": content}}


def dingtalk(digest: Digest) -> dict[str, Any]:
    text = fit(digest, lambda t: _utf8(_markdown(t)), DINGTALK_BYTES)
    return {"msgtype": "markdown", "markdown": {"title": text.heading, "text": _markdown(text)}}


def _feishu_post(text: DigestText, lang: str) -> dict[str, Any]:
    def line(words: str) -> list[dict[str, str]]:
        return [{"tag": "text", "text": words}]

    content = [line(text.changes_title), *[line(f"- {c}") for c in text.changes]]
    content += [line(text.more_changes)] if text.more_changes else []
    content += [line(text.table_title), *[line(f"- {r}") for r in text.row_lines]]
    content += [line(text.more_rows)] if text.more_rows else []
    if text.url:
        content.append([{"tag": "a", "text": text.link_text, "href": text.url}])
    locale = "zh_cn" if lang == "zh" else "en_us"
    return {"msg_type": "post", "content": {"post": {locale: {"title": text.heading, "content": content}}}}


def feishu(digest: Digest, msg_type: str) -> dict[str, Any]:
    if msg_type == "text":
        text = fit(digest, lambda t: _utf8(json.dumps(t.plain(), ensure_ascii=False)), FEISHU_BYTES)
        return {"msg_type": "text", "content": {"text": text.plain()}}
    measure = lambda t: _utf8(json.dumps(_feishu_post(t, digest.language), ensure_ascii=False))  # noqa: E731
    return _feishu_post(fit(digest, measure, FEISHU_BYTES), digest.language)


def _slack_escape(words: str) -> str:
    return words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_sections(text: DigestText) -> tuple[str, str]:
    changes = [f"*{_slack_escape(text.changes_title)}*", *[f"• {_slack_escape(c)}" for c in text.changes]]
    changes += [_slack_escape(text.more_changes)] if text.more_changes else []
    rows = [f"*{_slack_escape(text.table_title)}*", *[f"• {_slack_escape(r)}" for r in text.row_lines]]
    rows += [_slack_escape(text.more_rows)] if text.more_rows else []
    return "\n".join(changes), "\n".join(rows)


def slack(digest: Digest) -> dict[str, Any]:
    text = fit(digest, lambda t: max(len(s) for s in _slack_sections(t)), SLACK_SECTION_CHARS)
    changes, rows = _slack_sections(text)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": text.heading[:SLACK_HEADER_CHARS]}},
        {"type": "section", "text": {"type": "mrkdwn", "text": changes}},
        {"type": "section", "text": {"type": "mrkdwn", "text": rows}},
    ]
    if text.url:
        link = f"<{text.url}|{_slack_escape(text.link_text)}>"
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": link}]})
    return {"text": text.heading, "blocks": blocks}


def _telegram_html(text: DigestText) -> str:
    e = html.escape
    lines = [f"<b>{e(text.heading)}</b>", "", f"<b>{e(text.changes_title)}</b>"]
    lines += [f"• {e(c)}" for c in text.changes]
    lines += [e(text.more_changes)] if text.more_changes else []
    lines += ["", f"<b>{e(text.table_title)}</b>", *[f"• {e(r)}" for r in text.row_lines]]
    lines += [e(text.more_rows)] if text.more_rows else []
    lines += ["", f'<a href="{e(text.url, quote=True)}">{e(text.link_text)}</a>'] if text.url else []
    return "\n".join(lines)


def telegram(digest: Digest, chat_id: str) -> dict[str, Any]:
    text = fit(digest, lambda t: len(_telegram_html(t)), TELEGRAM_CHARS)
    return {"chat_id": chat_id, "text": _telegram_html(text), "parse_mode": "HTML"}


def generic(digest: Digest) -> dict[str, Any]:
    """The digest itself, as JSON (with its hash, so a receiver can tell a repeat)."""
    return {"digest": digest.model_dump(mode="json"), "digest_hash": digest.digest_hash()}


def email_html(text: DigestText) -> str:
    """The HTML part of the email: the same words as the text part, the rows as a table."""
    e = html.escape
    parts = [f"<h2>{e(text.heading)}</h2>", f"<h3>{e(text.changes_title)}</h3><ul>"]
    parts += [f"<li>{e(c)}</li>" for c in text.changes] + ["</ul>"]
    parts += [f"<p>{e(text.more_changes)}</p>"] if text.more_changes else []
    parts += [f"<h3>{e(text.table_title)}</h3>", '<table border="1" cellpadding="4" cellspacing="0"><tr>']
    parts += [f"<th>{e(c)}</th>" for c in text.columns] + ["</tr>"]
    parts += ["<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>" for row in text.cells]
    parts += ["</table>"]
    parts += [f"<p>{e(text.more_rows)}</p>"] if text.more_rows else []
    parts += [f'<p><a href="{e(text.url, quote=True)}">{e(text.link_text)}</a></p>'] if text.url else []
    body = "\n".join(parts)
    return f'<!doctype html><html><head><meta charset="utf-8"></head><body>{body}</body></html>'
