"""The settings page over HTTP: the effective configuration with labels and units in both languages,
secrets never shown (only set / not set), the page opening even when the model cannot be built, and
"Test the model" (POST /settings/ping, `stockdesk llm ping`'s call): the model's reply through the
scripted provider, its errors with their own codes, and the same-origin rule of the UI's other
spending forms."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.entrypoints.web.pages.settings_view import PING_HINTS, settings_view
from stockdesk.shared.access import AuthMode
from stockdesk.shared.config import LLMAliasConfig, Settings
from tests.api_support import api_client
from tests.coordinator.support import ANSWERS, Router, pipeline
from tests.entrypoints.web.page_language_support import unmarked

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
HX = {"HX-Request": "true"}
SAME = {"Origin": "http://127.0.0.1"}
API_KEY = "sk-test-settings-page-0123456789"
DB_PASSWORD = "db-pass-settings-4711"
URL_TOKEN = "url-token-settings-8080"


def setting(page: str, key: str) -> str:
    """The shown value of one setting row (tags stripped, spaces collapsed)."""
    found = re.search(rf'<div data-setting="{key}"><dt>.*?</dt><dd>(.*?)</dd></div>', page, re.S)
    assert found, f"no row for {key}"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


@pytest.fixture
def router() -> Router:
    return Router()


@pytest.fixture
def container(settings: Settings, router: Router, tmp_path: Path) -> AppContainer:
    """A home whose model folder is its own and empty (the session's shared one holds the assembled
    model once a slow test has run)."""
    own = settings.model_copy(update={"models_dir_override": tmp_path / "no-models"})
    built, _, _ = pipeline(own, router)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def test_the_page_shows_each_area_with_labels_and_units_in_both_languages(client: TestClient) -> None:
    page = client.get("/settings")
    assert page.status_code == 200
    assert '<a href="/settings" aria-current="page">Settings</a>' in page.text  # in the nav, current
    assert setting(page.text, "llm_max_output_tokens") == "1,024 tokens"
    assert setting(page.text, "llm_timeout_seconds") == "240 s"
    assert setting(page.text, "api_max_tokens_per_day") == "2,000,000 tokens/day (UTC)"
    assert setting(page.text, "api_max_body_bytes") == "976.6 KB"
    assert setting(page.text, "max_window_days") == "5,490 days"
    assert setting(page.text, "jobs_max_running") == "1 job"  # singular
    assert setting(page.text, "max_tokens_per_run") == "no limit"
    assert setting(page.text, "panel_consensus_confidence") == "70%"
    assert setting(page.text, "strategy_memory_mb") == "2,048 MB"
    assert '<code class="env">STOCKDESK_API_RATE_PER_MINUTE</code>' in page.text
    # no alias configured: the embedded model, its file not assembled in this home
    assert '<tr data-alias="local">' in page.text and "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" in page.text
    assert 'data-model-state="missing"' in page.text and "1,065.6 MB" in page.text
    assert '<tr data-market="US">' in page.text and "not configured" in page.text  # SEC without its contact

    zh = client.get("/settings", headers=ZH).text
    assert '<a href="/settings" aria-current="page">设置</a>' in zh
    assert setting(zh, "llm_max_output_tokens") == "1,024 个 token"
    assert setting(zh, "llm_timeout_seconds") == "240 秒"
    assert "测试模型" in zh and "Test the model" not in zh
    assert '<a href="/settings">设置</a>' in client.get("/jobs", headers=ZH).text  # linked from every page


def test_every_catalogue_key_the_view_builds_exists_in_both_languages(settings: Settings) -> None:
    """The page builds its keys at run time (settings.field.<name>, .unit.<unit>, .word.<word>), which
    the catalogue scan cannot see: every one the view produces is in both catalogues."""
    view = settings_view(settings, {"CN": []})
    shown = [row for section in view.sections for row in section.rows]
    shown += [s for a in view.aliases for s in (a.timeout, *a.limits, *a.prices)]
    shown += [view.local_model.expected]
    keys = {f"settings.section.{section.key}" for section in view.sections}
    for row in shown:
        keys.add(f"settings.field.{row.key}")
        if row.unit or row.word:
            keys.add(f"settings.unit.{row.unit}" if row.unit else f"settings.word.{row.word}")
    keys |= {f"settings.ping.hint.{hint}" for hint in (*PING_HINTS, "other")}
    keys |= {f"settings.word.model.{state}" for state in ("verified", "unverified", "missing")}
    keys |= {f"settings.word.style.{style}" for style in ("choices", "prose")}
    for lang in ("en", "zh"):
        missing = sorted(keys - set(catalog(lang)))
        assert not missing, f"{lang}: {missing}"


def test_secrets_never_appear_only_whether_they_are_set(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("TUSHARE_TOKEN", "tushare-token-settings-99")
    configured = settings.model_copy(
        update={
            "database_url": f"postgresql+psycopg://stock:{DB_PASSWORD}@db.example.com:5432/desk",
            "llm_base_url": f"https://llm.example.com/v1?api_key={URL_TOKEN}",
            "llm_model": "deepseek-chat",
            "searxng_url": f"https://searcher:{URL_TOKEN}@searx.example.com",
        }
    )
    client = api_client(AppContainer(configured))  # the page reads no database: nothing is connected
    page = client.get("/settings")
    assert page.status_code == 200
    for secret in (API_KEY, DB_PASSWORD, URL_TOKEN, "tushare-token-settings-99"):
        assert secret not in page.text
    assert setting(page.text, "database_url") == "postgresql+psycopg://stock:***@db.example.com:5432/desk"
    assert setting(page.text, "searxng_url") == "https://searcher:***@searx.example.com"
    assert "https://llm.example.com/v1?api_key=***" in page.text
    assert '<tr data-env="OPENAI_API_KEY" data-set="yes">' in page.text
    assert '<tr data-env="TUSHARE_TOKEN" data-set="yes">' in page.text
    assert '<tr data-env="BOCHA_API_KEY" data-set="no">' in page.text
    alias = page.text[page.text.index('<tr data-alias="default">') :]
    assert "<code>OPENAI_API_KEY</code>" in alias[: alias.index("</tr>")]


def test_the_page_opens_when_the_model_cannot_be_built_and_the_ping_says_why(settings: Settings) -> None:
    """An alias whose key is missing: building the LLM service fails, the settings page does not."""
    configured = settings.model_copy(update={"llm_base_url": "https://llm.example.com/v1", "llm_model": "m"})
    client = api_client(AppContainer(configured))
    page = client.get("/settings")
    assert page.status_code == 200 and '<tr data-env="OPENAI_API_KEY" data-set="no">' in page.text
    ping = client.post("/settings/ping", data={"alias": ""}, headers=HX)
    assert ping.status_code == 500 and 'data-code="CONFIGURATION_ERROR"' in ping.text
    assert "OPENAI_API_KEY" in ping.text and "<html" not in ping.text
    assert catalog("en")["settings.ping.hint.configuration_error"] in ping.text


def test_test_the_model_shows_the_reply_time_and_tokens(client: TestClient, router: Router) -> None:
    page = client.get("/settings").text
    assert 'hx-post="/settings/ping" hx-target="#ping-result"' in page
    answer = client.post("/settings/ping", data={"alias": ""}, headers=HX)
    assert answer.status_code == 200 and "<html" not in answer.text
    assert router.count("PingAnswer") == 1  # one real round trip through the service
    assert 'id="ping-ok" data-alias="p0"' in answer.text
    assert ANSWERS["PingAnswer"]["reason"].replace("'", "&#39;") in answer.text
    assert re.search(r'id="ping-latency">\d+\.\d\d s<', answer.text)
    assert "150 tokens" in answer.text  # the scripted provider's 100 + 50

    named = client.post("/settings/ping", data={"alias": "p0"}, headers={**HX, **ZH})
    assert (
        named.status_code == 200 and "模型已回答（别名 p0）" in unmarked(named.text) and "利好" in named.text
    )
    whole = client.post("/settings/ping", data={"alias": "p0"})  # a form without htmx: the page with it
    assert whole.status_code == 200 and "<html" in whole.text and 'id="ping-ok"' in whole.text


def test_an_unknown_alias_or_a_broken_answer_is_an_error_with_its_code(
    client: TestClient, router: Router
) -> None:
    unknown = client.post("/settings/ping", data={"alias": "nope"}, headers=HX)
    assert unknown.status_code == 400 and 'data-code="LLM_UNKNOWN_ALIAS"' in unknown.text
    assert "Alias nope did not answer." in unmarked(unknown.text) and router.count("PingAnswer") == 0
    zh = client.post("/settings/ping", data={"alias": "nope"}, headers={**HX, **ZH})
    assert zh.status_code == 400 and catalog("zh")["settings.ping.hint.llm_unknown_alias"] in zh.text

    router.broken.add("PingAnswer")  # the model answers, but not in the schema
    broken = client.post("/settings/ping", data={"alias": ""}, headers=HX)
    assert broken.status_code == 422 and 'data-code="LLM_OUTPUT_PARSE_ERROR"' in broken.text
    assert catalog("en")["settings.ping.hint.llm_output_parse_error"] in broken.text


def test_the_ping_is_a_spending_form_same_origin_only(container: AppContainer, router: Router) -> None:
    client = api_client(container, auth=AuthMode.SPENDING)
    foreign = client.post("/settings/ping", data={"alias": ""}, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "ORIGIN_FORBIDDEN"
    scripted = client.post("/settings/ping", data={"alias": ""})  # no Origin: not this site's form
    assert scripted.status_code == 401 and router.count("PingAnswer") == 0
    assert client.get("/settings").status_code == 200  # reading the settings spends nothing
    own = client.post("/settings/ping", data={"alias": ""}, headers={**SAME, **HX})
    assert own.status_code == 200 and router.count("PingAnswer") == 1


def test_configured_aliases_are_listed_in_router_order_with_their_limits(settings: Settings) -> None:
    fast = LLMAliasConfig(
        name="fast",
        model="m-fast",
        base_url="https://a.example/v1",
        api_key_env="DEEPSEEK_API_KEY",
        priority=5,
        requests_per_minute=60,
        tokens_per_minute=100_000,
        max_concurrency=1,
        input_price_per_million=0.27,
        timeout_seconds=30,
    )
    slow = LLMAliasConfig(
        name="slow", model="m-slow", base_url="https://b.example/v1", api_key_env=None, priority=1
    )
    aliases = [fast, slow]
    client = api_client(AppContainer(settings.model_copy(update={"llm_aliases": aliases})))
    page = client.get("/settings").text
    assert re.findall(r'<tr data-alias="([\w-]+)">', page) == ["slow", "fast"]
    row = page[page.index('<tr data-alias="fast">') :]
    row = " ".join(re.sub(r"<[^>]+>", " ", row[: row.index("</tr>")]).split())
    for shown in (
        "30 s",
        "at once: 1 call",
        "requests: 60 requests/min",
        "tokens: 100,000 tokens/min",
        "prompt: US$0.27 per million tokens",
        "answer: free",
        "DEEPSEEK_API_KEY not set",
    ):
        assert shown in row, shown
    assert 'aria-label="Test the model of alias fast"' in page
    assert "no key needed" in page  # `slow` names no key variable
