"""The web UI: server-rendered pages (Jinja2 + htmx, ECharts for charts) over the application services.

Served by the API's FastAPI app at `/` (the API stays under /api/v1). Pages hold no business logic:
each route calls the same application service its REST twin calls and renders what it returns.
"""
