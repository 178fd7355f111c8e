"""Where the REST API lives, and the answer of a route that moved to the general jobs routes.

Every kind of long work is stopped by `POST /api/v1/jobs/{id}/cancel`; the per-kind cancel routes
that came first answer 307 (the method and body are kept) to it and are left out of the OpenAPI
document, so old clients keep working and new ones see one way.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse

API_PREFIX = "/api/v1"


def cancel_moved(job_id: str) -> RedirectResponse:
    """307 to `POST /api/v1/jobs/{job_id}/cancel`."""
    return RedirectResponse(f"{API_PREFIX}/jobs/{job_id}/cancel", status_code=307)
