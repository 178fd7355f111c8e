"""The web UI's sessions: what the security probe found, reproduced against the real app.

The probe: on loopback any local process posting a UI form with a copied `Origin` header started
an analysis with no key, and that spending was never counted against the daily cap; the login cookie
held the API key itself, logging out did not end it, `/logout` needed a valid key, and a stale
cookie (another server's on the same host) turned every page into a JSON 401. Each test below fails
on that code and passes now. The app is the real one (SQLite store, key and session stores, scripted
LLM), called through TestClient with the policy `stockdesk serve` uses.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.security import UI_SPENDING_ROUTES
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.access import AuthMode
from stockdesk.shared.access.sessions import LOCAL, session_cookie_name
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

COOKIE = "stockdesk_session"  # the name for a Host without a port (TestClient's 127.0.0.1)
SAME = {"Origin": "http://127.0.0.1"}
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
FORM = {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": ["valuation_modeler"]}
TOKENS_PER_CALL = 150  # the scripted provider's 100 prompt + 50 completion tokens


def sign_in(client: TestClient, key: str, next: str = "/sessions") -> str:
    """Sign in with `key`; returns the session cookie's value the client now holds."""
    signed = client.post("/login", data={"key": key, "next": next}, headers=SAME, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == next, signed.text
    value = client.cookies.get(COOKIE)
    assert value
    return value


def plant(client: TestClient, value: str) -> None:
    """A session cookie the server did not give (another server's, or one it has ended since)."""
    client.cookies.set(COOKIE, value, domain="127.0.0.1")


def stored_sessions(container: AppContainer) -> list[tuple]:
    with container.database.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(text("SELECT * FROM ui_sessions"))]


def charged(container: AppContainer, provider: ScriptedProvider) -> int:
    """The local user's tokens of today once they add up to every call made (the job records them
    when it ends, just after its session is stored)."""
    today = datetime.now(UTC).date()
    deadline = time.monotonic() + 30.0
    while True:
        spent = container.api_keys.tokens_on(LOCAL, today)
        if (provider.calls and spent == provider.calls * TOKENS_PER_CALL) or time.monotonic() > deadline:
            return spent
        time.sleep(0.05)


def finished(container: AppContainer, session_id: str) -> None:
    deadline = time.monotonic() + 60.0
    while not container.analyses.progress(session_id).finished:
        assert time.monotonic() < deadline, f"analysis {session_id} never ended"
        time.sleep(0.05)


@pytest.mark.parametrize(
    "path",
    [pattern.pattern.replace("[^/]+", "x") for method, pattern in UI_SPENDING_ROUTES if method == "POST"],
)
def test_a_form_post_with_a_copied_origin_and_no_session_is_refused_and_calls_no_model(
    settings: Settings, path: str
) -> None:
    """The probe's `curl -H 'Origin: http://127.0.0.1:PORT' -d ... /analyses`: a 401 page, nothing run."""
    container, router, provider = pipeline(settings)
    client = api_client(container, auth=AuthMode.SPENDING)
    refused = client.post(path, data=FORM, headers=SAME, follow_redirects=False)
    assert refused.status_code == 401, refused.text
    assert refused.headers["content-type"].startswith("text/html")
    assert 'data-code="API_KEY_REQUIRED"' in refused.text
    assert COOKIE not in refused.headers.get("set-cookie", "")  # a post never opens a session
    assert provider.calls == 0 and router.calls == []
    assert client.get("/api/v1/coordinator/research/sessions").json()["total"] == 0


def test_a_local_session_opened_by_the_ui_spends_from_one_daily_budget(settings: Settings) -> None:
    container, _, provider = pipeline(settings)
    first = api_client(container, auth=AuthMode.SPENDING)
    opened = first.get("/")
    assert opened.status_code == 200 and f"{COOKIE}=" in opened.headers["set-cookie"]
    started = first.post("/analyses", data=FORM, headers=SAME, follow_redirects=False)
    assert started.status_code == 303, started.text
    finished(container, started.headers["location"].removeprefix("/analyses/"))
    spent = charged(container, provider)
    assert provider.calls > 0 and spent == provider.calls * TOKENS_PER_CALL

    # Another local session (another browser) on a server whose daily cap is what was spent: the
    # local user has one budget, so its first spending request is refused and reaches no model.
    calls = provider.calls
    capped = api_client(container, auth=AuthMode.SPENDING, max_tokens_per_day=spent)
    assert capped.get("/").status_code == 200
    refused = capped.post("/analyses", data=FORM, headers=SAME, follow_redirects=False)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "TOKEN_BUDGET_SPENT"
    assert "the local user" in refused.json()["error"]["message"]
    assert int(refused.headers["Retry-After"]) > 0
    assert provider.calls == calls


def test_the_cookie_holds_a_session_id_never_the_key(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    _, key = container.api_keys.create("ui")
    client = api_client(container, auth=AuthMode.ALL)
    signed = client.post("/login", data={"key": key, "next": "/"}, headers=SAME, follow_redirects=False)
    cookie = signed.headers["set-cookie"]
    value = client.cookies.get(COOKIE)
    assert value and key not in cookie and value not in key and len(value) >= 40
    attributes = {part.strip() for part in cookie.split(";")}
    assert {"HttpOnly", "SameSite=strict", "Path=/"} <= attributes
    assert "secure" not in cookie.lower()  # plain http on loopback: a Secure cookie would never come back
    rows = stored_sessions(container)
    assert len(rows) == 1 and all(value not in str(column) and key not in str(column) for column in rows[0])

    secure = TestClient(client.app, base_url="https://127.0.0.1", raise_server_exceptions=False)
    over_https = secure.post("/login", data={"key": key, "next": "/"}, headers={"Origin": "https://127.0.0.1"},
                             follow_redirects=False)  # fmt: skip
    assert over_https.status_code == 303 and "Secure" in over_https.headers["set-cookie"]


def test_each_server_port_has_its_own_cookie_so_two_local_servers_do_not_clash(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container, auth=AuthMode.SPENDING)
    answer = client.get("/", headers={"Host": "127.0.0.1:8123"})
    assert answer.status_code == 200 and answer.headers["set-cookie"].startswith("stockdesk_session_8123=")
    assert session_cookie_name("[::1]:8000") == "stockdesk_session_8000"
    assert session_cookie_name("localhost") == COOKIE


def test_signed_in_pages_offer_sign_out_and_it_ends_the_session_without_a_key(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    _, key = container.api_keys.create("ui")
    client = api_client(container, auth=AuthMode.ALL)
    old = sign_in(client, key)
    page = client.get("/sessions")
    assert page.status_code == 200 and 'action="/logout"' in page.text

    out = client.post("/logout", headers=SAME, follow_redirects=False)  # the cookie only, no key
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert client.cookies.get(COOKIE) is None and stored_sessions(container) == []

    plant(client, old)  # the old cookie, replayed: it names nothing any more
    again = client.get("/sessions", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == "/login?next=%2Fsessions"
    plant(client, old)
    assert client.get("/api/v1/coordinator/research/sessions").status_code == 401

    stranger = api_client(container, auth=AuthMode.ALL)  # no cookie, no key: /logout is public
    assert stranger.post("/logout", follow_redirects=False).status_code == 303
    plant(stranger, "not-a-session")
    assert stranger.post("/logout", follow_redirects=False).status_code == 303


def test_the_local_users_pages_offer_no_sign_out(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container, auth=AuthMode.SPENDING)
    assert 'action="/logout"' not in client.get("/sessions").text


@pytest.mark.parametrize("auth", [AuthMode.SPENDING, AuthMode.ALL])
def test_a_stale_cookie_sends_pages_to_login_and_forms_get_a_401_page(
    settings: Settings, auth: AuthMode
) -> None:
    """Another server's session cookie (or one from before a reset): never a JSON 401 on a page."""
    container, _, provider = pipeline(settings)
    client = api_client(container, auth=auth)
    plant(client, "a-session-of-another-server")
    page = client.get("/sessions?symbol=600001.SH", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"] == "/login?next=%2Fsessions%3Fsymbol%3D600001.SH"
    assert client.cookies.get(COOKIE) is None  # cleared with the redirect

    plant(client, "a-session-of-another-server")
    form = client.post("/analyses", data=FORM, headers={**SAME, **ZH}, follow_redirects=False)
    assert form.status_code == 401 and form.headers["content-type"].startswith("text/html")
    assert 'data-code="SESSION_EXPIRED"' in form.text and "你的登录已结束" in form.text
    assert client.cookies.get(COOKIE) is None and provider.calls == 0

    plant(client, "a-session-of-another-server")
    login = client.get("/login?next=/sessions")
    assert login.status_code == 200  # the login form itself is never blocked by a cookie
    if auth == AuthMode.SPENDING:  # on loopback the form says no key is needed, and goes on
        assert 'href="/sessions"' in login.text and "Continue without a key" in login.text
        client.cookies.clear()
        assert client.get("/sessions").status_code == 200  # a fresh local session
    else:
        assert "Continue without a key" not in login.text


def test_a_revoked_key_ends_its_sessions(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    record, key = container.api_keys.create("ui")
    client = api_client(container, auth=AuthMode.ALL)
    sign_in(client, key)
    assert client.get("/sessions").status_code == 200
    container.api_keys.revoke(record.id)
    gone = client.get("/sessions", follow_redirects=False)
    assert gone.status_code == 303 and gone.headers["location"].startswith("/login")


def test_a_local_session_opens_nothing_on_a_server_that_needs_keys_everywhere(settings: Settings) -> None:
    """A server restarted beyond loopback over the same store does not honour the local user's cookie."""
    container, _, _ = pipeline(settings)
    loopback = api_client(container, auth=AuthMode.SPENDING)
    loopback.get("/")
    local = loopback.cookies.get(COOKIE)
    assert local
    exposed = api_client(container, auth=AuthMode.ALL)
    plant(exposed, local)
    refused = exposed.get("/sessions", follow_redirects=False)
    assert refused.status_code == 303 and refused.headers["location"].startswith("/login")


def test_the_old_cookie_holding_a_key_opens_nothing_and_is_removed(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    _, key = container.api_keys.create("ui")
    exposed = api_client(container, auth=AuthMode.ALL)
    exposed.cookies.set("stockdesk_key", key, domain="127.0.0.1")  # what a browser kept from before
    refused = exposed.get("/sessions", follow_redirects=False)
    assert refused.status_code == 303 and refused.headers["location"].startswith("/login")
    sign_in(exposed, key)
    assert exposed.get("/sessions").status_code == 200
    assert exposed.cookies.get("stockdesk_key") is None  # the first page signed in deleted it

    loopback = api_client(container, auth=AuthMode.SPENDING)
    loopback.cookies.set("stockdesk_key", key, domain="127.0.0.1")
    assert loopback.get("/").status_code == 200 and loopback.cookies.get("stockdesk_key") is None
