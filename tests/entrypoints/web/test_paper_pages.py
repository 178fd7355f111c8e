"""The Paper books pages: the list, a book's page (figures, chart, positions, trades with reasons in
the page's language), an unknown book's 404, and the REST routes they link to."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import LANG_COOKIE
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.paper.market import A, populate
from tests.paper.support import BOOK, seed_book


def test_the_list_and_a_book_page_in_both_languages(settings: Settings) -> None:
    container = AppContainer(settings)
    client = api_client(container)
    empty = client.get("/paper")
    assert empty.status_code == 200 and 'id="paper-none"' in empty.text
    seed_book(container.paper.store)
    listed = client.get("/paper")
    assert f'href="/paper/{BOOK}"' in listed.text
    page = client.get(f"/paper/{BOOK}")
    assert page.status_code == 200
    assert "1,001,940.00" in page.text and "0.19 %" in page.text  # end equity, total return
    assert "limit-up at the open" in page.text and "20,000" in page.text
    spec = page.text.split('data-spec="', 1)[1].split('"', 1)[0]
    assert "paper book" in spec.replace("&#34;", '"')
    client.cookies.set(LANG_COOKIE, "zh")
    zh = client.get(f"/paper/{BOOK}")
    assert "开盘涨停" in zh.text and "模拟账户" in zh.text and "limit-up" not in zh.text
    assert client.get("/paper/no-such-book").status_code == 404


def test_the_rest_routes(settings: Settings) -> None:
    container = AppContainer(settings)
    client: TestClient = api_client(container)
    seed_book(container.paper.store)
    books = client.get("/api/v1/paper/books").json()
    assert [b["name"] for b in books] == [BOOK]
    view = client.get(f"/api/v1/paper/books/{BOOK}").json()
    assert view["figures"]["end_equity"] == 1_001_940 and len(view["trades"]) == 2
    assert view["figures"]["not_filled"] == 1
    html = client.get(f"/api/v1/paper/books/{BOOK}", params={"format": "html"})
    assert html.status_code == 200 and "<svg" in html.text
    missing = client.get("/api/v1/paper/books/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "PAPER_BOOK_NOT_FOUND"
    again = client.post("/api/v1/paper/books", json={"name": BOOK, "symbols": ["600000.SH"]})
    assert again.status_code == 409, again.text
    unknown = client.post("/api/v1/paper/books", json={"name": "other", "symbols": ["999999.SH"]})
    assert unknown.status_code == 400 and "not in the store" in json.dumps(unknown.json())
    populate(container.database)
    container.portfolio.watchlists.add("core", [A])
    listed = client.post("/api/v1/paper/books", json={"name": "wl", "watchlist": "core"})
    assert listed.status_code == 201 and listed.json()["symbols"] == [A], listed.text
    assert listed.json()["watchlist"] == "core"
    nolist = client.post("/api/v1/paper/books", json={"name": "wl2", "watchlist": "nope"})
    assert nolist.status_code == 404 and nolist.json()["error"]["code"] == "WATCHLIST_NOT_FOUND"
    neither = client.post("/api/v1/paper/books", json={"name": "wl3"})
    assert neither.status_code == 400 and neither.json()["error"]["code"] == "PAPER_BAD_INPUT"
    closed = client.post(f"/api/v1/paper/books/{BOOK}/close")
    assert closed.status_code == 200 and closed.json()["closed"] is True
