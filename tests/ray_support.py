"""One local Ray instance for the whole test session (starting one costs ~4 s).

tests/conftest.py registers the fixture: a test asks for `ray_local` like any other fixture.
Ray's worker processes start once, so they never see a test's monkeypatched environment:
whatever a remote function needs travels in its arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

RAY_TEST_CPUS = 4  # more logical slots than the machine's 2 cores: lets tests run 4 workers at once


def ray_address() -> str:
    """The running local instance's address, for a second driver process to join."""
    import ray

    return str(ray.get_runtime_context().gcs_address)


@pytest.fixture(scope="session")
def ray_local() -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="ray is not installed (make installs it)")
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(
            num_cpus=RAY_TEST_CPUS,
            include_dashboard=False,
            log_to_driver=False,
            namespace="stockdesk-tests",
            configure_logging=False,
            # workers import test helpers (tests.*) by name, whatever directory a test is in
            runtime_env={"env_vars": {"PYTHONPATH": str(REPO_ROOT)}},
        )
    yield
    if started_here:
        ray.shutdown()
