"""The Database kernel on PostgreSQL: tests.shared.test_database re-run unchanged, each on an
empty database (the first session must create the schema)."""

import pytest

from tests.shared.test_database import *  # noqa: F403


@pytest.fixture
def postgres_database_url(postgres_url: str) -> str:
    return postgres_url
