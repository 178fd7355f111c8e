"""Who may use the web UI: the local user's own pages on loopback, a signed-in key beyond it."""

from __future__ import annotations

from stockdesk.shared.access import AuthMode
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

SAME = {"Origin": "http://127.0.0.1"}
FORM = {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": ["valuation_modeler"]}


def test_on_loopback_the_ui_starts_an_analysis_without_a_key_but_the_api_needs_one(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container, auth=AuthMode.SPENDING)
    assert client.get("/").status_code == 200  # the page opens the local user's session
    page = client.post("/analyses", data=FORM, headers=SAME, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/analyses/"), page.text
    api = client.post("/api/v1/coordinator/research/jobs", json=FORM, headers=SAME)  # the same cookie
    assert api.status_code == 401 and api.json()["error"]["code"] == "API_KEY_REQUIRED"


def test_a_form_posted_from_another_site_or_by_a_script_without_origin_is_refused(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container, auth=AuthMode.SPENDING)
    foreign = client.post("/analyses", data=FORM, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "ORIGIN_FORBIDDEN"
    scripted = client.post("/analyses", data=FORM)  # no Origin: not a browser form of this site
    assert scripted.status_code == 401
    assert client.get("/api/v1/coordinator/research/sessions").json()["total"] == 0


def test_beyond_loopback_pages_ask_to_sign_in_and_a_key_opens_them(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    _, key = container.api_keys.create("ui")
    client = api_client(container, auth=AuthMode.ALL)
    first = client.get("/sessions?symbol=600001.SH", follow_redirects=False)
    assert (
        first.status_code == 303
        and first.headers["location"] == "/login?next=%2Fsessions%3Fsymbol%3D600001.SH"
    )
    assert client.get("/login").status_code == 200 and client.get("/static/app.css").status_code == 200

    wrong = client.post("/login", data={"key": "sdk_wrong", "next": "/sessions"}, headers=SAME)
    assert wrong.status_code == 401 and "unknown or revoked" in wrong.text
    signed = client.post(
        "/login", data={"key": key, "next": "/sessions"}, headers=SAME, follow_redirects=False
    )
    assert signed.status_code == 303 and signed.headers["location"] == "/sessions"
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert client.get("/sessions").status_code == 200  # the client keeps the cookie
    assert client.get("/api/v1/coordinator/research/sessions").status_code == 200  # the same key


def test_sign_in_and_language_switch_never_redirect_off_the_site(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    for target in ("//evil.example/x", "https://evil.example/", "evil"):
        answer = client.get(f"/lang/zh?next={target}", follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/", target
    page = client.get("/login?next=https://evil.example/")
    assert 'value="/"' in page.text


def test_uploads_may_be_larger_than_api_bodies_but_are_capped_too(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container, max_body_bytes=1_000, max_upload_bytes=5_000)
    big_api = client.post("/api/v1/coordinator/research", content=b"x" * 2_000, headers=SAME)
    assert big_api.status_code == 413
    upload = client.post("/data/import", content=b"x" * 2_000, headers={**SAME, "Content-Type": "text/csv"})
    assert upload.status_code != 413  # within the upload cap: the route decides
    too_big = client.post("/data/import", content=b"x" * 6_000, headers={**SAME, "Content-Type": "text/csv"})
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "BODY_TOO_LARGE"


def test_ui_errors_are_pages_and_api_errors_stay_json(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    page = client.get("/no/such/page")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert 'data-code="NOT_FOUND"' in page.text and "Content-Security-Policy" in page.headers
    fragment = client.get("/no/such/page", headers={"HX-Request": "true"})
    assert fragment.status_code == 404 and "<html" not in fragment.text and "NOT_FOUND" in fragment.text
    api = client.get("/api/v1/no/such")
    assert api.status_code == 404 and api.json()["error"]["code"] == "NOT_FOUND"
