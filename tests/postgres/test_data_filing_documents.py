"""Filing pages on PostgreSQL: tests.data_engineering.test_filing_documents re-run unchanged
(see conftest)."""

from tests.data_engineering.test_filing_documents import *  # noqa: F403
