"""`/api/v1/docs` from the package's own files: Swagger UI's script and style are vendored with
htmx and ECharts (`make web-assets`), so the page renders with no network, as the README promises
("nothing is fetched from a CDN"). FastAPI's default page loads them from a CDN and is blank offline.

The page is started by a script file of ours, not an inline script, so it is served under the web
UI's content security policy (nothing runs or loads from elsewhere).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from markupsafe import escape

from stockdesk.entrypoints.web.templating import SECURITY_HEADERS
from stockdesk.shared.routes import API_PREFIX

DOCS_PATH = f"{API_PREFIX}/docs"
OPENAPI_PATH = f"{API_PREFIX}/openapi.json"
VENDOR = "/static/vendor"
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="icon" href="{vendor}/favicon-32x32.png">
<link rel="stylesheet" href="{vendor}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="{vendor}/swagger-ui-bundle.js"></script>
<script src="/static/api-docs.js"></script>
</body>
</html>
"""


def install_api_docs(app: FastAPI) -> None:
    """The Swagger UI page over the app's OpenAPI document, every asset served by the app itself."""
    html = PAGE.format(title=escape(f"{app.title} API"), vendor=VENDOR, openapi=OPENAPI_PATH)

    @app.get(DOCS_PATH, include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(html, headers=SECURITY_HEADERS)
