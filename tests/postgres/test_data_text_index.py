"""The full-text index on PostgreSQL: tests.data_engineering.test_text_index re-run unchanged
(see conftest)."""

from tests.data_engineering.test_text_index import *  # noqa: F403
