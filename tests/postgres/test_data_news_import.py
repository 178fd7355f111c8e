"""News imports on PostgreSQL: tests.data_engineering.test_news_import re-run unchanged
(see conftest)."""

from tests.data_engineering.test_news_import import *  # noqa: F403
