"""Where the REST API lives, and the answer of a route that moved to the general jobs routes.

Every kind of long work is stopped by `POST /api/v1/jobs/{id}/cancel` and resumed by
`POST /api/v1/jobs/{id}/resume`; the per-kind cancel and resume routes that came first answer 307
(the method and body are kept) to them and are left out of the OpenAPI document, so old clients
keep working and new ones see one way.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse

API_PREFIX = "/api/v1"


def cancel_moved(job_id: str) -> RedirectResponse:
    """307 to `POST /api/v1/jobs/{job_id}/cancel`."""
    return RedirectResponse(f"{API_PREFIX}/jobs/{job_id}/cancel", status_code=307)


def resume_moved(job_id: str) -> RedirectResponse:
    """307 to `POST /api/v1/jobs/{job_id}/resume`."""
    return RedirectResponse(f"{API_PREFIX}/jobs/{job_id}/resume", status_code=307)
