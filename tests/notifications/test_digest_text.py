"""The digest's words: code writes every sentence from the catalogue, changes first, rows cut whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stockdesk.notifications.application import DigestRow, digest_text, fit
from stockdesk.shared.errors import BadRequestException
from tests.notifications.support import container, digest, write_config


def test_english_sentences_in_order_with_the_link_last() -> None:
    text = digest_text(digest("en"))
    plain = text.plain()
    assert text.heading == "Core watchlist: 2026-11-27"
    assert text.changes == [
        "600519 Kweichow Moutai is now BUY (was HOLD).",
        "Held 000001 turned to EXIT (was HOLD).",
        "AAPL closed at 178.52, across its stop at 180.00.",
    ]
    assert text.row_lines[0] == (
        "600000 Kweichow Moutai: HOLD; uncalibrated; close 1,500.00 (+1.25%); stop 1,400.00, target 1,700.00."
    )
    assert "P(up) 61% from 120 verdicts" in text.row_lines[1]
    assert (
        plain.index("Changes since the last run") < plain.index("All symbols") < plain.index("Full report:")
    )
    assert plain.endswith("Full report: https://desk.example/r/1")


def test_no_changes_no_link_and_a_holder_action() -> None:
    base = digest("zh", url=None)
    quiet = base.model_copy(update={"changes": [], "rows": [DigestRow(symbol="600519", action="TRIM")]})
    text = digest_text(quiet)
    assert (
        text.changes == ["与上次运行相比没有变化。"] and text.link is None and "完整报告" not in text.plain()
    )
    assert text.row_lines == ["600519：减仓；未校准；收盘 无（无）；止损 无，目标 无。"]


def test_fit_drops_whole_rows_then_changes_and_refuses_a_heading_too_long() -> None:
    many = digest("en", rows=50)
    full = len(digest_text(many).plain())
    text = fit(many, lambda t: len(t.plain()), full - 1)
    assert len(text.row_lines) == 49 and text.more_rows == "Symbols not shown here: 1, in the full report."
    bare = fit(many, lambda t: len(t.plain()), len(digest_text(many, rows=0, changes=1).plain()))
    assert bare.row_lines == [] and bare.more_changes == "Changes not shown here: 2, in the full report."
    with pytest.raises(BadRequestException):
        fit(many, lambda t: len(t.plain()), 10)


def test_the_hash_is_the_digest() -> None:
    assert digest().digest_hash() == digest().digest_hash()
    assert digest().digest_hash() != digest(run="run-2").digest_hash()
    assert digest().digest_hash() != digest("zh").digest_hash()


def test_the_report_link_is_under_the_public_url_only_when_one_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_url = write_config(tmp_path, monkeypatch, 'public_url = "https://desk.example/"\n')
    assert (
        container(with_url).service.report_url("/reports/run-1.html")
        == "https://desk.example/reports/run-1.html"
    )
    without = write_config(tmp_path, monkeypatch, "")
    assert container(without).service.report_url("/reports/run-1.html") is None


def test_every_notify_secret_is_known_to_the_redaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_URL_X", "https://hooks.example/very-secret-hook-id")
    monkeypatch.setenv("TG_TOKEN_X", "999:telegram-secret-token")
    settings = write_config(
        tmp_path,
        monkeypatch,
        '[notify.channels.h]\ntype = "slack"\nurl_env = "HOOK_URL_X"\n\n'
        '[notify.channels.t]\ntype = "telegram"\ntoken_env = "TG_TOKEN_X"\nchat_id = "1"\n',
    )
    values = settings.secret_values()
    assert "https://hooks.example/very-secret-hook-id" in values and "999:telegram-secret-token" in values
    shown = json.dumps(settings.redacted())
    assert "very-secret-hook-id" not in shown and "telegram-secret-token" not in shown


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "Held 000001 is at EXIT (not in the last run)."),
        ("zh", "持仓 000001 现为清仓（上次运行中没有该标的）。"),
    ],
)
def test_a_held_name_not_in_the_last_run_says_so(lang: str, sentence: str) -> None:
    from stockdesk.notifications.application import DigestChange
    from stockdesk.notifications.domain.digest import ChangeKind

    change = DigestChange(kind=ChangeKind.HELD_EXIT, symbol="000001", before=None, after="EXIT")
    text = digest_text(digest(lang).model_copy(update={"changes": [change]}))
    assert text.changes == [sentence]
