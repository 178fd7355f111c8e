"""Watchlists and holdings on PostgreSQL: tests.portfolio's service and import tests re-run unchanged
(see conftest), the store's fixtures with them."""

from tests.portfolio.conftest import app_container, portfolio  # noqa: F401
from tests.portfolio.test_holdings_import import *  # noqa: F403
from tests.portfolio.test_rest import *  # noqa: F403
from tests.portfolio.test_services import *  # noqa: F403
