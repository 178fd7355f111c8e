"""UI text: both languages complete, every key a page asks for exists, the browser's language picks."""

from __future__ import annotations

import json
import re
from pathlib import Path

from starlette.requests import Request

from stockdesk.entrypoints.web.i18n import LANGUAGES, Translator, catalog, pick_language

WEB = Path(__file__).resolve().parents[3] / "src" / "stockdesk" / "entrypoints" / "web"
# t("key") / t('key' ...) in templates and page code; keys built at run time ("state." ~ x) are not literals
USED = re.compile(r"""\bt\(\s*["']([a-z_]+\.[a-z0-9_.]*[a-z0-9_])["']""")


def _request(headers: dict[str, str]) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "method": "GET", "path": "/", "headers": raw, "query_string": b""})


def test_no_catalogue_file_names_a_key_twice() -> None:
    """JSON keeps the last of two equal keys silently: a merge that adds a key twice must be seen."""
    files = [*WEB.glob("i18n/*/*.json"), *WEB.parents[1].glob("shared/i18n/*/*.json")]
    assert len(files) > 10
    for path in files:
        pairs = json.loads(path.read_text("utf-8"), object_pairs_hook=lambda items: items)
        keys = [key for key, _ in pairs]
        assert len(keys) == len(set(keys)), f"{path}: {sorted(k for k in set(keys) if keys.count(k) > 1)}"


def test_every_area_file_has_the_same_keys_in_both_languages() -> None:
    areas = {p.name for lang in LANGUAGES for p in (WEB / "i18n" / lang).glob("*.json")}
    assert "common.json" in areas
    for area in sorted(areas):
        keys = {lang: set(json.loads((WEB / "i18n" / lang / area).read_text("utf-8"))) for lang in LANGUAGES}
        assert keys["en"] == keys["zh"], (
            f"{area}: only in en {keys['en'] - keys['zh']}, only in zh {keys['zh'] - keys['en']}"
        )
        zh = json.loads((WEB / "i18n" / "zh" / area).read_text("utf-8"))
        assert all(text.strip() for text in zh.values()), f"{area}: an empty Chinese text"


def test_every_key_the_pages_use_is_in_the_catalog() -> None:
    known = catalog("en")
    used: set[str] = set()
    for path in [*WEB.rglob("*.j2"), *WEB.rglob("*.py")]:
        used |= set(USED.findall(path.read_text("utf-8")))
    assert used, "the scan found no t('...') call: the pattern is wrong"
    missing = sorted(k for k in used if k not in known)
    assert not missing, f"keys used but not in i18n/en: {missing}"


def test_the_browser_language_picks_and_the_cookie_overrides() -> None:
    assert pick_language(_request({"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})) == "zh"
    assert pick_language(_request({"Accept-Language": "fr-FR,en;q=0.5,zh;q=0.7"})) == "zh"  # by quality
    assert pick_language(_request({"Accept-Language": "de-DE,fr;q=0.9"})) == "en"  # nothing supported
    assert pick_language(_request({})) == "en"
    assert pick_language(_request({"Accept-Language": "zh-CN", "Cookie": "lang=en"})) == "en"
    assert pick_language(_request({"Cookie": "lang=xx", "Accept-Language": "zh"})) == "zh"  # unknown cookie


def test_a_missing_chinese_text_falls_back_to_english_and_values_are_filled_in() -> None:
    t = Translator("zh")
    assert t("nav.sessions") == "研究记录"
    assert t("error.heading", status=404) == "出错了（404）"
    assert t("no.such_key") == "no.such_key"  # visible, and caught by the catalog test above


def test_an_error_is_worded_by_its_code_with_its_details_marked_and_never_in_english_on_a_chinese_page() -> (
    None
):
    en, zh = Translator("en"), Translator("zh")
    details = {"symbol": "999999.SH"}
    assert zh.error("STOCK_NOT_FOUND", "该标的不存在: 999999.SH is not in the store", details) == (
        '库中没有该标的：<span translate="no">999999.SH</span>。'
    )
    assert en.error("STOCK_NOT_FOUND", "该标的不存在: 999999.SH", details).startswith('<span translate="no">')
    # a code the catalogue does not word: the English message on an English page, a sentence naming the
    # code on a Chinese one; a detail its text names but the error lacks: the same
    assert en.error("SOME_NEW_CODE", "the thing broke") == "the thing broke"
    assert (
        zh.error("SOME_NEW_CODE", "the thing broke")
        == '请求未能完成（错误 <span translate="no">SOME_NEW_CODE</span>）。'
    )
    assert zh.error("STOCK_NOT_FOUND", "x is not in the store") == zh.error("STOCK_NOT_FOUND", "")
    assert "not in the store" not in zh.error("STOCK_NOT_FOUND", "x is not in the store")


def test_every_error_text_is_in_both_languages_with_the_same_details() -> None:
    errors = {k: v for k, v in catalog("en").items() if k.startswith("errors.")}
    assert "errors.generic" in errors and len(errors) > 10
    for key, english in errors.items():
        chinese = catalog("zh")[key]
        assert set(re.findall(r"{(\w+)}", english)) == set(re.findall(r"{(\w+)}", chinese)), key


def test_a_stored_system_reason_is_worded_and_any_other_record_is_marked_as_data() -> None:
    zh = Translator("zh")
    assert zh.stored("job cancelled by the user") == "已被用户取消"
    assert zh.stored("ConnectionError: host unreachable") == (
        '<span translate="no">ConnectionError: host unreachable</span>'
    )
