"""One Jinja2 environment for every page; `render` gives a page (or, for htmx, just the fragment).

Templates get `t` (the request's translator), `lang`, the current path for the nav, and `charts_json`
to embed a ChartSpec for charts.js. A request from htmx (`HX-Request`) that asks for a block gets only
that block, so one template serves the full page and its partial updates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse

from stockdesk import __version__
from stockdesk.entrypoints.web.assets import missing_vendor_files
from stockdesk.entrypoints.web.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, pick_language, user_data
from stockdesk.shared.charts import spec_in_language

NAV = (  # (path, i18n key): the top navigation, in order
    ("/", "nav.analyze"),
    ("/batches", "nav.batches"),
    ("/sessions", "nav.sessions"),
    ("/evaluations", "nav.evaluations"),
    ("/track", "nav.track"),
    ("/paper", "nav.paper"),
    ("/schedules", "nav.schedules"),
    ("/watchlists", "nav.watchlists"),
    ("/holdings", "nav.holdings"),
    ("/portfolio", "nav.portfolio"),
    ("/strategy", "nav.strategy"),
    ("/briefings", "nav.briefings"),
    ("/data", "nav.data"),
    ("/jobs", "nav.jobs"),
    ("/settings", "nav.settings"),
)
SECURITY_HEADERS = {
    # every script and style is a file of ours: no inline script can run, nothing loads from elsewhere
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; media-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def chart_json(spec: Mapping[str, Any]) -> Markup:
    """A ChartSpec as JSON for a `data-spec` attribute (autoescaping quotes it safely)."""
    return Markup.escape(json.dumps(spec, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def code_spans(text: str) -> Markup:
    """`{{ t("key") | code_spans }}`: a catalogue text whose `backticked` parts (a file name, a
    command) are shown as code, the rest escaped."""
    parts = str(text).split("`")
    return Markup("").join(
        Markup("<code>{}</code>").format(part) if index % 2 else Markup.escape(part)
        for index, part in enumerate(parts)
    )


def data_filter(value: Any) -> Markup:
    """`{{ x | data }}`: a value that is the user's (a symbol, a name, an id, the models' prose, a
    stored record), marked `translate="no"`; nothing for an empty value."""
    return user_data(value) if value not in (None, "") else Markup("")


class Pages:
    def __init__(self) -> None:
        self.env = Environment(
            loader=PackageLoader("stockdesk.entrypoints.web", "templates"),
            autoescape=select_autoescape(["html", "j2"]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["chart_json"] = chart_json
        self.env.filters["data"] = data_filter
        self.env.filters["code_spans"] = code_spans
        self.env.filters["chart_in"] = spec_in_language
        self.env.globals.update(
            version=__version__, nav=NAV, languages=LANGUAGES, language_names=LANGUAGE_NAMES
        )

    def render(
        self,
        request: Request,
        template: str,
        context: Mapping[str, Any] | None = None,
        *,
        status_code: int = 200,
        block: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        """The page, or only `block` of it (for htmx updates of one part)."""
        lang = pick_language(request)
        values = {
            "request": request,
            "t": Translator(lang),
            "lang": lang,
            "path": request.url.path,
            # signed in with a key (a session the security middleware found): the top bar offers to sign out
            "signed_in": getattr(request.state, "signed_in", False),
            "missing_assets": missing_vendor_files(),
            **(context or {}),
        }
        compiled = self.env.get_template(template)
        if block is not None:
            html = "".join(compiled.blocks[block](compiled.new_context(values)))
        else:
            html = compiled.render(values)
        return HTMLResponse(html, status_code=status_code, headers={**SECURITY_HEADERS, **(headers or {})})

    def render_text(self, request: Request, template: str, block: str, context: Mapping[str, Any]) -> str:
        """One block as text: what an SSE progress event carries (htmx swaps it into the page)."""
        response = self.render(request, template, context, block=block)
        return bytes(response.body).decode("utf-8")

    def fragment_or_page(
        self, request: Request, template: str, block: str, context: Mapping[str, Any] | None = None, **kw: Any
    ) -> HTMLResponse:
        """`block` alone for an htmx request, the whole page otherwise (a reload, a shared link)."""
        partial = is_htmx(request) and not request.headers.get("hx-history-restore-request")
        return self.render(request, template, context, block=block if partial else None, **kw)


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"
