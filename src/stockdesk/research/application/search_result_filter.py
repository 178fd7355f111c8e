"""Rule-based filtering of raw search results, injected into the experts' search data.

Deterministic rules only, in this order: keep the first of each URL, drop blank titles, drop
items with neither summary nor snippet. No relevance guessing: a smarter filter (an LLM scorer,
say) is another `ISearchResultFilter` bound in the container, with no change to the search data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from stockdesk.web_search.application.search_service import WebSearchItem


def _blank(text: str | None) -> bool:
    return not (text or "").strip()


class ISearchResultFilter(ABC):
    @abstractmethod
    def apply(self, items: list[WebSearchItem]) -> list[WebSearchItem]: ...


class RuleBasedResultFilter(ISearchResultFilter):
    def apply(self, items: list[WebSearchItem]) -> list[WebSearchItem]:
        seen: set[str] = set()
        unique = []
        for item in items:
            if item.url in seen:
                continue
            seen.add(item.url)
            unique.append(item)
        titled = [i for i in unique if not _blank(i.title)]
        return [i for i in titled if not (_blank(i.summary) and _blank(i.snippet))]
