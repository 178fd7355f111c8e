"""Split a filing page into parts the small embedded model can read in one call.

A part ends at the last paragraph break before the limit, else the last sentence end, else the last
whitespace; the first two only count in the back half of the window, so parts stay close to the
limit. Only a run with no whitespace longer than the limit is cut hard (there is no word boundary
to keep). Parts are consecutive slices: joined, they are the page, character for character.
"""

from __future__ import annotations

import re

CJK_STOPS = "。！？；"
_PARAGRAPH = re.compile(r"\n[ \t\r\f\v]*\n\s*")
# a Latin stop needs whitespace after it ("$1.2", "U.S.A" are not sentence ends); a CJK stop does not
_SENTENCE = re.compile(rf"[.!?][\"'”’)\]]*\s+|[{CJK_STOPS}]\s*")
_SPACE = re.compile(r"\s+")


def split_page(text: str, limit: int) -> list[str]:
    """Consecutive parts of at most `limit` characters; a text within the limit is one part."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1 (got {limit})")
    parts: list[str] = []
    start = 0
    while len(text) - start > limit:
        cut = _cut(text[start : start + limit], limit)
        parts.append(text[start : start + cut])
        start += cut
    if start < len(text) or not parts:
        parts.append(text[start:])
    return parts


def _cut(window: str, limit: int) -> int:
    """Where to end the part that starts `window` (an offset in 1..limit)."""
    floor = limit // 2
    for pattern in (_PARAGRAPH, _SENTENCE):
        ends = [m.end() for m in pattern.finditer(window) if m.end() >= floor]
        if ends:
            return ends[-1]
    spaces = [m.end() for m in _SPACE.finditer(window)]
    return spaces[-1] if spaces else limit
