"""The Portfolio page's view model: the view as shown in the page's language (the rows the CLI's
table and the HTML report read, `portfolio.presentation.shown`) and its two charts' specs."""

from __future__ import annotations

from typing import Any

from stockdesk.portfolio.application import PortfolioView
from stockdesk.portfolio.application.charts import allocation_chart, value_chart
from stockdesk.portfolio.presentation.shown import shown_view


def portfolio_page(view: PortfolioView, lang: str) -> dict[str, Any]:
    specs = [allocation_chart(view), value_chart(view)]
    return {
        "s": shown_view(view, lang),
        "alloc_chart": specs[0].model_dump(mode="json") if specs[0] else None,
        "value_chart": specs[1].model_dump(mode="json") if specs[1] else None,
    }
