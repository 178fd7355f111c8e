"""The track record on PostgreSQL: tests.evaluation.test_track re-run unchanged (see conftest)."""

from tests.evaluation.test_track import *  # noqa: F403
