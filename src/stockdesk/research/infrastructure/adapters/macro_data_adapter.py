"""MacroDataAdapter: the macro intelligence expert's searches (filter injected, dimensions as data)."""

from __future__ import annotations

from stockdesk.research.domain.dtos.search_dimensions import MACRO_DIMENSIONS
from stockdesk.research.infrastructure.adapters.search_data_adapter import SearchDataAdapter


class MacroDataAdapter(SearchDataAdapter):
    """(basic_info, search, result_filter, dimensions=MACRO_DIMENSIONS)."""

    expert = "macro_intelligence"
    default_dimensions = MACRO_DIMENSIONS
