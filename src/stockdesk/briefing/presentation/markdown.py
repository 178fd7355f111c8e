"""A briefing script as Markdown: a heading per chapter, `**speaker**: text` per turn, and each cited
source as a footnote (`[^n]`, numbered once per source in order of first citation, defined on the
lines right after the turn that first cites it)."""

from __future__ import annotations

from stockdesk.briefing.domain.dtos import BriefingScript
from stockdesk.debate.application import Source
from stockdesk.debate.application.sources import canonical_key


def source_label(source: Source) -> str:
    if source.type == "article":
        return f"news: {source.title} ({source.pk})"
    if source.type == "chart":
        return f"chart: {source.ticker} {source.start_date} to {source.end_date}"
    if source.type == "sec_filing":
        return f"filing: {source.ticker} {source.form} filed {source.filed_date} ({source.accession_number})"
    return f"event: {source.date} {source.title} ({source.id})"


def render_markdown(script: BriefingScript) -> str:
    day = f"{script.date[:4]}-{script.date[4:6]}-{script.date[6:]}"
    lines = [f"# Briefing {day}: {', '.join(script.user_tickers)}", ""]
    numbers: dict[tuple[str, ...], int] = {}
    chapter_at = {c.start_id: c for c in script.chapter}
    for turn in script.scripts:
        chapter = chapter_at.get(turn.id)
        if chapter is not None:
            lines += [f"## {chapter.name}", ""]
        marks, notes = [], []
        for source in turn.sources:
            key = canonical_key(source)
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                notes.append(f"[^{numbers[key]}]: {source_label(source)}")
            marks.append(f"[^{numbers[key]}]")
        text = " ".join(turn.text.split())
        lines.append(f"**{turn.speaker}**: {text}" + (" " + "".join(marks) if marks else ""))
        lines.append("")
        if notes:
            lines += [*notes, ""]
    return "\n".join(lines).rstrip() + "\n"
