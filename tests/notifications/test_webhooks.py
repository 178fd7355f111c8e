"""Every webhook format against a local HTTP receiver: the payload shapes, Feishu's and DingTalk's
signatures, the platforms' failure signals, retries, idempotence, health and redaction."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stockdesk.notifications.application import FAILING_AFTER
from stockdesk.notifications.infrastructure.formats import WECOM_BYTES
from tests.notifications.receiver import Receiver, receiver
from tests.notifications.support import container, digest, write_config

FEISHU_SECRET = "feishu-signing-secret-1234"
DING_SECRET = "SECding-signing-secret-5678"
TG_TOKEN = "123456:telegram-token-abcdef"


@pytest.fixture
def hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Receiver, object]]:
    with receiver() as got:
        got.default.update({
            "/wecom/send": (200, '{"errcode": 0, "errmsg": "ok"}'),
            "/ding/send": (200, '{"errcode": 0, "errmsg": "ok"}'),
            "/feishu/hook/abcdef1234567890": (200, '{"code": 0, "msg": "success"}'),
            "/slack/services/T000/B000/slackhooksecret": (200, "ok"),
            f"/bot{TG_TOKEN}/sendMessage": (200, '{"ok": true, "result": {}}'),
            "/generic": (200, "{}"),
        })  # fmt: skip
        monkeypatch.setenv("WECOM_URL", f"{got.base}/wecom/send?key=wecom-key-0123456789")
        monkeypatch.setenv("DING_URL", f"{got.base}/ding/send?access_token=ding-token-0123456789")
        monkeypatch.setenv("DING_SECRET", DING_SECRET)
        monkeypatch.setenv("FEISHU_URL", f"{got.base}/feishu/hook/abcdef1234567890")
        monkeypatch.setenv("FEISHU_SECRET", FEISHU_SECRET)
        monkeypatch.setenv("SLACK_URL", f"{got.base}/slack/services/T000/B000/slackhooksecret")
        monkeypatch.setenv("TG_TOKEN", TG_TOKEN)
        monkeypatch.setenv("GENERIC_URL", f"{got.base}/generic")
        settings = write_config(
            tmp_path,
            monkeypatch,
            f"""
[notify]
attempts = 3
backoff_seconds = 0

[notify.channels.wecom]
type = "wecom"
url_env = "WECOM_URL"

[notify.channels.ding]
type = "dingtalk"
url_env = "DING_URL"
secret_env = "DING_SECRET"

[notify.channels.feishu]
type = "feishu"
url_env = "FEISHU_URL"
secret_env = "FEISHU_SECRET"

[notify.channels.feishu-text]
type = "feishu"
url_env = "FEISHU_URL"
msg_type = "text"

[notify.channels.slack]
type = "slack"
url_env = "SLACK_URL"

[notify.channels.tg]
type = "telegram"
token_env = "TG_TOKEN"
chat_id = "-100123"
api_base = "{got.base}"

[notify.channels.hook]
type = "webhook"
url_env = "GENERIC_URL"
""",
        )
        yield got, container(settings)


def test_each_platform_gets_its_own_payload_shape(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    sent = notify.service.deliver(digest("zh"))  # type: ignore[attr-defined]
    assert {r.status for r in sent} == {"sent"}, sent

    (wecom,) = got.on("/wecom/send")
    assert wecom.query["key"] == ["wecom-key-0123456789"]
    assert set(wecom.body) == {"msgtype", "markdown"} and wecom.body["msgtype"] == "markdown"
    content = wecom.body["markdown"]["content"]
    assert content.startswith("### 自选股：2026-11-27")
    assert content.index("600519 贵州茅台 现为买入（此前为持有）。") < content.index("全部标的")
    assert "[完整报告](https://desk.example/r/1)" in content

    (ding,) = got.on("/ding/send")
    assert set(ding.body) == {"msgtype", "markdown"} and set(ding.body["markdown"]) == {"title", "text"}
    assert ding.body["markdown"]["title"] == "自选股：2026-11-27"

    feishu = got.on("/feishu/hook/abcdef1234567890")
    post = next(r.body for r in feishu if r.body["msg_type"] == "post")
    text = next(r.body for r in feishu if r.body["msg_type"] == "text")
    assert set(post) == {"timestamp", "sign", "msg_type", "content"}
    zh = post["content"]["post"]["zh_cn"]
    assert zh["title"] == "自选股：2026-11-27"
    assert [{"tag": "a", "text": "完整报告", "href": "https://desk.example/r/1"}] in zh["content"]
    assert (
        set(text) == {"msg_type", "content"}
        and "持仓 000001 转为清仓（此前为持有）。" in text["content"]["text"]
    )

    (slack,) = got.on("/slack/services/T000/B000/slackhooksecret")
    assert set(slack.body) == {"text", "blocks"}
    assert [b["type"] for b in slack.body["blocks"]] == ["header", "section", "section", "context"]
    assert slack.body["blocks"][3]["elements"][0]["text"] == "<https://desk.example/r/1|完整报告>"

    (tg,) = got.on(f"/bot{TG_TOKEN}/sendMessage")
    assert set(tg.body) == {"chat_id", "text", "parse_mode"}
    assert tg.body["chat_id"] == "-100123" and tg.body["parse_mode"] == "HTML"
    assert tg.body["text"].startswith("<b>自选股：2026-11-27</b>")

    (generic,) = got.on("/generic")
    assert generic.body["digest"]["rows"][0]["symbol"] == "600000"
    assert generic.body["digest_hash"] == digest("zh").digest_hash()


def test_feishu_and_dingtalk_signatures_are_the_documented_hmac(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    notify.service.deliver(digest(), ["feishu", "ding"])  # type: ignore[attr-defined]
    (feishu,) = got.on("/feishu/hook/abcdef1234567890")
    timestamp = int(feishu.body["timestamp"])
    assert abs(time.time() - timestamp) < 60  # seconds
    key = f"{timestamp}\n{FEISHU_SECRET}".encode()
    assert feishu.body["sign"] == base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()

    (ding,) = got.on("/ding/send")
    stamp = ding.query["timestamp"][0]
    assert abs(time.time() * 1000 - int(stamp)) < 60_000  # milliseconds
    expected = hmac.new(DING_SECRET.encode(), f"{stamp}\n{DING_SECRET}".encode(), hashlib.sha256).digest()
    assert ding.query["sign"] == [base64.b64encode(expected).decode()]  # parse_qs has URL-decoded it
    assert ding.query["access_token"] == ["ding-token-0123456789"]


def test_a_500_is_retried_until_it_is_taken(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    got.answer("/generic", (500, "down"), (503, "still down"))
    (result,) = notify.service.deliver(digest(), ["hook"])  # type: ignore[attr-defined]
    assert (result.status, result.attempts) == ("sent", 3)
    assert len(got.on("/generic")) == 3
    rows = notify.store.all()  # type: ignore[attr-defined]
    assert [(r.attempt, r.status) for r in rows] == [(1, "retrying"), (2, "retrying"), (3, "sent")]
    assert "HTTP 500" in (rows[0].error or "")


def test_a_400_is_not_retried_and_a_200_with_an_error_code_is_a_failure(
    hooks: tuple[Receiver, object],
) -> None:
    got, notify = hooks
    got.answer("/generic", (400, '{"error": "bad"}'))
    got.answer("/wecom/send", (200, '{"errcode": 93000, "errmsg": "invalid webhook url"}'))
    got.answer("/feishu/hook/abcdef1234567890", (200, '{"code": 19021, "msg": "sign match fail"}'))
    got.answer(f"/bot{TG_TOKEN}/sendMessage", (200, '{"ok": false, "description": "chat not found"}'))
    got.answer("/slack/services/T000/B000/slackhooksecret", (200, "invalid_payload"))
    results = notify.service.deliver(digest(), ["hook", "wecom", "feishu", "tg", "slack"])  # type: ignore[attr-defined]
    assert [(r.channel, r.status, r.attempts) for r in results] == [
        (name, "failed", 1) for name in ("hook", "wecom", "feishu", "tg", "slack")
    ]
    assert "93000" in (results[1].error or "") and "19021" in (results[2].error or "")
    assert "chat not found" in (results[3].error or "") and "invalid_payload" in (results[4].error or "")
    assert len(got.on("/generic")) == 1
    assert {r.status for r in notify.store.all()} == {"failed"}  # type: ignore[attr-defined]


def test_a_429_is_retried(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    got.answer("/generic", (429, "slow down"))
    (result,) = notify.service.deliver(digest(), ["hook"])  # type: ignore[attr-defined]
    assert (result.status, result.attempts) == ("sent", 2)


def test_the_same_digest_is_sent_once_per_channel(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    first = notify.service.deliver(digest(), ["hook", "wecom"])  # type: ignore[attr-defined]
    again = notify.service.deliver(digest(), ["hook", "wecom"])  # type: ignore[attr-defined]
    other = notify.service.deliver(digest(run="run-2"), ["hook"])  # type: ignore[attr-defined]
    assert [r.status for r in first] == ["sent", "sent"]
    assert [(r.status, r.attempts) for r in again] == [("already_sent", 0), ("already_sent", 0)]
    assert [r.status for r in other] == ["sent"]
    assert len(got.on("/generic")) == 2 and len(got.on("/wecom/send")) == 1


def test_a_channel_failing_three_deliveries_in_a_row_is_failing(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    got.default["/generic"] = (500, "down")

    def health() -> object:
        return next(s for s in notify.service.channels() if s.name == "hook").health  # type: ignore[attr-defined]

    assert health().last_success is None and not health().failing  # type: ignore[attr-defined]
    got.default["/generic"] = (200, "{}")
    notify.service.deliver(digest(run="ok"), ["hook"])  # type: ignore[attr-defined]
    got.default["/generic"] = (500, "down")
    for n in range(1, FAILING_AFTER + 1):
        (result,) = notify.service.deliver(digest(run=f"r{n}"), ["hook"])  # type: ignore[attr-defined]
        assert (result.status, result.attempts) == ("failed", 3)
        assert health().consecutive_failures == n  # type: ignore[attr-defined]
        assert health().failing is (n == FAILING_AFTER)  # type: ignore[attr-defined]
    assert health().last_success is not None  # type: ignore[attr-defined]
    got.default["/generic"] = (200, "{}")
    notify.service.deliver(digest(run="back"), ["hook"])  # type: ignore[attr-defined]
    assert not health().failing and health().consecutive_failures == 0  # type: ignore[attr-defined]


def test_no_secret_reaches_the_records_or_the_log(
    hooks: tuple[Receiver, object], caplog: pytest.LogCaptureFixture
) -> None:
    got, notify = hooks
    for path in ("/wecom/send", "/ding/send", "/generic", f"/bot{TG_TOKEN}/sendMessage"):
        got.default[path] = (500, "echo: wecom-key-0123456789 ding-token-0123456789 " + TG_TOKEN)
    got.default["/slack/services/T000/B000/slackhooksecret"] = (404, "no hook slackhooksecret")
    caplog.set_level(logging.DEBUG)
    results = notify.service.deliver(digest())  # type: ignore[attr-defined]
    assert any(r.status == "failed" for r in results)
    records = json.dumps([r.model_dump(mode="json") for r in notify.store.all()])  # type: ignore[attr-defined]
    results_text = json.dumps([r.model_dump() for r in results])
    everything = records + results_text + caplog.text
    assert "***" in records
    for secret in (
        "wecom-key-0123456789", "ding-token-0123456789", TG_TOKEN, "telegram-token-abcdef", DING_SECRET,
        FEISHU_SECRET, "slackhooksecret", "abcdef1234567890",
    ):  # fmt: skip
        assert secret not in everything, secret


def test_a_long_digest_is_cut_by_whole_rows_and_says_how_many(hooks: tuple[Receiver, object]) -> None:
    got, notify = hooks
    notify.service.deliver(digest("zh", rows=200), ["wecom", "tg"])  # type: ignore[attr-defined]
    content = got.on("/wecom/send")[0].body["markdown"]["content"]
    assert len(content.encode("utf-8")) <= WECOM_BYTES
    row_lines = [line for line in content.splitlines() if "；止损 " in line]  # one line per row shown
    assert 0 < len(row_lines) < 200
    assert f"另有 {200 - len(row_lines)} 个标的，见完整报告。" in content
    assert all(line.endswith("目标 1,700.00。") for line in row_lines)  # whole sentences only
    telegram = got.on(f"/bot{TG_TOKEN}/sendMessage")[0].body["text"]
    assert len(telegram) <= 4096 and "个标的，见完整报告。" in telegram
