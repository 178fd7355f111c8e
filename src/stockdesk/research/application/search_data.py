"""The soft-intelligence experts' search data: one search per SearchDimensionConfig.

Per dimension: render the query from the config, search with the config's count and freshness
as of the analysis date, filter with the injected filter, sort newest first (undated last),
log the counts, and only then map to research DTOs. The macro and catalyst experts differ only
in their dimension lists (data, in `dtos/search_dimensions.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date

from stockdesk.data_engineering.application import GetStockBasicInfoUseCase
from stockdesk.research.application.search_result_filter import ISearchResultFilter
from stockdesk.research.domain.dtos.search import (
    DimensionSearchResult,
    SearchDimensionConfig,
    SearchResultItem,
    StockSearchContext,
)
from stockdesk.research.domain.dtos.search_dimensions import CATALYST_DIMENSIONS, MACRO_DIMENSIONS
from stockdesk.web_search.application.search_service import (
    WebSearchItem,
    WebSearchRequest,
    WebSearchService,
    newest_first,
)

logger = logging.getLogger(__name__)
LANGUAGE_OF_MARKET = {"CN": "zh", "US": "en"}


def to_result_item(item: WebSearchItem) -> SearchResultItem:
    return SearchResultItem.model_validate(item.model_dump())


class SearchDataAdapter:
    """Subclasses differ only in their dimension list (and the name in the logs)."""

    expert = "search"
    default_dimensions: tuple[SearchDimensionConfig, ...] = ()

    def __init__(
        self,
        basic_info: GetStockBasicInfoUseCase,
        search: WebSearchService,
        result_filter: ISearchResultFilter,
        dimensions: Sequence[SearchDimensionConfig] | None = None,
    ):
        """`result_filter` is injected (never built here), so swapping it needs no change here."""
        self._basic_info = basic_info
        self._search = search
        self._filter = result_filter
        self._dimensions = tuple(dimensions if dimensions is not None else self.default_dimensions)

    @property
    def dimensions(self) -> tuple[SearchDimensionConfig, ...]:
        return self._dimensions

    def get_search_context(self, symbol: str, as_of: date) -> StockSearchContext | None:
        """Name, industry, market and language of the stock, or None when it is unknown."""
        security = self._basic_info.execute(symbol)
        if security is None:
            return None
        name = security.name or security.symbol
        return StockSearchContext(
            symbol=security.symbol,
            stock_name=name,
            industry=security.industry or name,  # an unknown industry is searched by the company
            market=security.market,
            language=LANGUAGE_OF_MARKET.get(security.market, "en"),  # type: ignore[arg-type]
            as_of=as_of,
        )

    def search(self, context: StockSearchContext) -> list[DimensionSearchResult]:
        return [self._search_dimension(config, context) for config in self._dimensions]

    def _search_dimension(
        self, config: SearchDimensionConfig, context: StockSearchContext
    ) -> DimensionSearchResult:
        request = WebSearchRequest(
            query=config.render(context),
            freshness=config.freshness,
            count=config.count,
            symbol=context.symbol if config.stock_scoped else None,
            as_of=context.as_of,
        )
        response = self._search.search(request)
        kept = newest_first(self._filter.apply(response.items))
        logger.info(
            "%s dimension %s: %d results before filtering, %d after",
            self.expert,
            config.name,
            len(response.items),
            len(kept),
        )
        return DimensionSearchResult(
            name=config.name,
            topic=config.topic,
            query=request.query,
            freshness=config.freshness,
            count=config.count,
            provider=response.provider,
            results_before_filter=len(response.items),
            items=[to_result_item(i) for i in kept],
        )


class MacroDataAdapter(SearchDataAdapter):
    """The macro intelligence expert's searches: (basic_info, search, result_filter, dimensions)."""

    expert = "macro_intelligence"
    default_dimensions = MACRO_DIMENSIONS


class CatalystDataAdapter(SearchDataAdapter):
    """The catalyst detective's searches: (basic_info, search, result_filter, dimensions)."""

    expert = "catalyst_detective"
    default_dimensions = CATALYST_DIMENSIONS
