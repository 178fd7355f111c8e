"""Fixtures of the portfolio tests: the real container over a seeded SQLite store."""

from __future__ import annotations

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.portfolio.container import PortfolioContainer
from stockdesk.shared.config import Settings
from tests.portfolio.support import seed


@pytest.fixture
def app_container(settings: Settings) -> AppContainer:
    container = AppContainer(settings)
    seed(container.database)
    return container


@pytest.fixture
def portfolio(app_container: AppContainer) -> PortfolioContainer:
    return app_container.portfolio
