"""Search cards: each article a search expert was shown, quoted as a card (choices mode).

Why: a search expert's evidence is third-party text. Code can quote it (the title, the site, the
date, exactly as the search returned them) but cannot sign it: whether a headline is good or bad
news is the model's reading, so every search card has direction 0 and strength 0, and the expert's
verdict is where the model's reading shows. Ids are `<macro|catalyst>.<dimension>.<n>` (n from 1 in
the dimension's kept results), stable for one snapshot.
"""

from __future__ import annotations

from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.search import SearchResultItem, SearchSnapshotDTO

SHORT = {"macro_intelligence": "macro", "catalyst_detective": "catalyst"}


def _where(item: SearchResultItem) -> tuple[str, str]:
    """(site, date) as the result gave them; what is missing is left out, never guessed."""
    day = item.published_date.date().isoformat() if item.published_date else ""
    return item.site_name.strip(), day


def search_card(expert: str, dimension: str, n: int, item: SearchResultItem) -> EvidenceCard:
    site, day = _where(item)
    where = "，".join(x for x in (site, day) if x)
    where_en = ", ".join(x for x in (site, day) if x)
    title = " ".join(item.title.split())
    return EvidenceCard(
        id=f"{SHORT[expert]}.{dimension}.{n}",
        expert=expert,
        text_zh=f"《{title}》" + (f"（{where}）" if where else ""),
        text_en=f'"{title}"' + (f" ({where_en})" if where_en else ""),
        direction=0,
        strength=0.0,
        figures={},
    )


def search_cards(expert: str, snapshot: SearchSnapshotDTO) -> list[tuple[EvidenceCard, str]]:
    """One card per kept search result, with its URL, in the order the expert was shown them."""
    return [
        (search_card(expert, dimension.name, n, item), item.url)
        for dimension in snapshot.dimensions
        for n, item in enumerate(dimension.items, start=1)
    ]
