"""CatalystDataAdapter: the catalyst detective's searches (filter injected, dimensions as data)."""

from __future__ import annotations

from stockdesk.research.domain.dtos.search_dimensions import CATALYST_DIMENSIONS
from stockdesk.research.infrastructure.adapters.search_data_adapter import SearchDataAdapter


class CatalystDataAdapter(SearchDataAdapter):
    """(basic_info, search, result_filter, dimensions=CATALYST_DIMENSIONS)."""

    expert = "catalyst_detective"
    default_dimensions = CATALYST_DIMENSIONS
