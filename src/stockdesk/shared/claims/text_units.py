"""Text units the checks work on: sentences (what gets dropped) and clauses (what a claim scopes to).

A claim is read inside one clause ("营收下降 13.7%，但利润增长" makes two claims), and a
violating claim takes its sentence with it; a bullet is dropped whole.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"[。！？；;!?\n]+|\.(?=\s|$)")
_CLAUSE_SPLIT = re.compile(r"，|(?<!\d),|,(?!\d)")
_NOT_WORD = re.compile(r"[\W_]+")
_CJK_NEGATION = re.compile(r"并非|不是|并不|并未|绝非|不存在|没有|尚未|未见|远离|距离|[没未非不无距]")
_EN_NEGATION = re.compile(r"\b(?:not|no|never|without|hardly)\b|n't\b", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """The sentences of `text` with their end punctuation, so that joining them gives `text` back."""
    pieces, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        pieces.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def core(piece: str) -> str:
    """A sentence without its end punctuation and surrounding space."""
    return _SENTENCE_END.sub("", piece).strip()


def sentences(text: str) -> list[str]:
    return [c for c in (core(p) for p in split_sentences(text)) if c]


def clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_SPLIT.split(sentence) if c.strip()]


def units(text: str) -> list[tuple[str, list[str]]]:
    """(sentence, its clauses) for every sentence of `text`."""
    return [(s, clauses(s)) for s in sentences(text)]


_LEADING_LINK = re.compile(
    r"^(?:但是|但|而且|而|并且|且|同时|然而|不过|因此|所以|另外|此外|and|but|so)\s*", re.I
)


def without_link(clause: str) -> str:
    """A clause without its leading connective: "且整体财务状况不佳" says "整体财务状况不佳" again."""
    return _LEADING_LINK.sub("", clause)


def normalise(text: str) -> str:
    """Letters, digits and CJK only, lower case: what two bullets must share to be the same."""
    return _NOT_WORD.sub("", text.lower())


def negated(before: str, window: int = 4) -> bool:
    """Does a negation end the text just before a word ("并非数据不足", "没有下降", "not weak")?"""
    tail = before.rstrip()
    if _CJK_NEGATION.search(tail[-window:]):
        return True
    words = tail.split()[-3:]
    return bool(words) and bool(_EN_NEGATION.search(" ".join(words)))


def capitalised(text: str) -> str:
    """An English sentence written from a card starts with a capital; the rest of the card's words
    stay as code wrote them (a name like "MACD" or "PE" keeps its case)."""
    return f"{text[:1].upper()}{text[1:]}"
