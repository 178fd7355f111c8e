"""The verdict ledger on PostgreSQL (advisory lock, concurrent writers): tests.ledger.test_ledger_chain
re-run unchanged (see conftest)."""

from tests.ledger.test_ledger_chain import *  # noqa: F403
