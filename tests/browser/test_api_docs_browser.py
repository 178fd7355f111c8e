"""`/api/v1/docs` in a real chromium with every request outside the server refused: Swagger UI's
files are vendored (`make web-assets`), so the page renders the API with no network at all."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect


def test_the_api_docs_render_with_the_network_blocked(web_server: WebServer, page: Page) -> None:
    outside: list[str] = []

    def only_the_server(route: Route) -> None:
        if route.request.url.startswith(web_server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_server)
    page.goto(f"{web_server.url}/api/v1/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("stockdesk")
    expect(page.locator(".opblock-tag").first).to_be_visible()  # the routes, grouped by tag
    expect(page.locator(".opblock").first).to_be_attached()
    assert outside == []  # nothing was even asked of another host
