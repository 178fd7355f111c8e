"""Names of people and firms a briefing turn gives that no source given to the writer holds.

Why: the worker is tool-less and may only retell its inputs; a broker, a CEO or a company the
inputs never name ("Goldman Sachs raised its target", "高盛集团表示") is a fact it invented, and a
number check cannot see it. The detector is deliberately simple (patterns, no NER model), so it
is a flag in the audit, not a reason to drop a turn:

- English: two or more capitalised words in a row ("Goldman Sachs", "Tim Cook", "Bank of
  America"), after taking off the words that are capitalised for another reason (a sentence
  opener such as "The", "Now", "What", day and month names, BUY/SELL/HOLD and the day's tickers);
  a single capitalised word is never a candidate (too many sentence openers);
- Chinese firms: a word of two to eight characters ending in a company suffix (…公司, …集团,
  …证券, …银行, …基金, …资本, …控股), unless the word before the suffix is generic (该公司, 上市公司,
  子公司, 多家银行);
- Chinese people: two or three characters before 表示 / 说 / 称 / 指出 / 认为, unless they end
  in a role or pronoun (分析师表示, 管理层认为, 他说, 市场认为).

A candidate is known when its text (case-insensitive) appears in the writer's sources: the whole
input of its call (the debate JSON, the base script, the citable sources, the bars). For a
Chinese firm any ending of it that still has two characters before the suffix counts ("据高盛集团"
is known from "高盛集团").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CAP_WORD = r"[A-Z][A-Za-z0-9&'’.\-]*"
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")  # a name never runs across two sentences
_EN_NAME = re.compile(rf"{_CAP_WORD}(?:(?:\s+(?:of|and|&|de|van|von)\s+|\s+){_CAP_WORD})+")
OPENERS = frozenset((
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "good", "here", "how", "if", "in", "it",
    "its", "let", "let's", "meanwhile", "next", "no", "now", "of", "on", "our", "over", "so", "thank",
    "thanks", "that", "the", "their", "then", "there", "these", "this", "those", "to", "today",
    "tomorrow", "well", "what", "when", "where", "which", "while", "who", "why", "with", "yes",
    "yesterday", "also", "finally", "first", "after", "before", "every", "all", "both", "most", "some",
    "many", "analysts", "investors", "shares", "stock",
))  # fmt: skip
CALENDAR = frozenset((
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
    "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
))  # fmt: skip
ACTIONS = frozenset({"BUY", "SELL", "HOLD"})
_CN_FIRM = re.compile(r"([\u4e00-\u9fff]{2,8}?)(公司|集团|证券|银行|基金|资本|控股)")
GENERIC_FIRM = (
    "上市", "该", "本", "这", "那", "其", "各", "母", "子", "多家", "几家", "一家", "这家", "那家",
    "商业", "中央", "投资", "管理", "保险", "科技", "国有", "大型", "头部", "同行", "竞争",
)  # fmt: skip
_LEAD = "据和与及在对向从被由把是称的了也还都但而"  # function characters that open a firm match
_CN_PERSON = re.compile(r"([\u4e00-\u9fff]{2,3})(?:表示|说|称|指出|认为)")
# last characters of what comes before 表示/说 that is not a person: roles, pronouns, adverbs,
# "报道", and the firm suffixes (…集团表示 is the firm speaking)
ROLE_ENDS = set(
    "师者层方人们家司场队构告据员官会局部他她它我你其均都也还则就又曾并道闻章此然遍般步时外仍已再更亦示后前中上下里内团券行金本股"
)
MAX_FIRM_HEAD = 6


def _english(text: str, skip: set[str]) -> list[str]:
    found = []
    matches = [m for sentence in _SENTENCE_BREAK.split(text) for m in _EN_NAME.finditer(sentence)]
    for match in matches:
        words = re.split(r"\s+", match.group(0).strip())
        while words and (words[0].lower() in OPENERS or words[0].strip(".'’") in skip):
            words.pop(0)
        words = [w for w in words if w.lower() not in CALENDAR and w.strip(".,'’") not in skip]
        capitalised = [w for w in words if w[:1].isupper()]
        if len(capitalised) >= 2:
            found.append(re.sub(r"(?:'s|’s)$", "", " ".join(words)).rstrip(".,"))
    return found


def _chinese_firms(text: str) -> list[tuple[str, list[str]]]:
    """(the name as written, its endings that may match a source) per firm-like word."""
    found = []
    for match in _CN_FIRM.finditer(text):
        head, suffix = match.group(1), match.group(2)
        cut = max(head.rfind(c) for c in _LEAD)  # "据高盛" -> "高盛"
        head = head[cut + 1 :][-MAX_FIRM_HEAD:]
        if len(head) < 2 or any(head.endswith(g) for g in GENERIC_FIRM):
            continue
        endings = [head[i:] + suffix for i in range(len(head) - 1)]
        found.append((head + suffix, endings))
    return found


def _chinese_people(text: str) -> list[str]:
    found = []
    for match in _CN_PERSON.finditer(text):
        name = match.group(1)
        if name[-1] in ROLE_ENDS:
            continue
        if len(name) == 3 and name[0] in ROLE_ENDS | set(_LEAD):
            name = name[1:]
        found.append(name)
    return found


def unknown_names(text: str, sources: str, *, skip: Iterable[str] = ()) -> list[str]:
    """The names in `text` that `sources` never gives (each once, in order); `skip`: words that
    are capitalised but not names (the day's tickers)."""
    known = sources.lower()
    skipped = {*ACTIONS, *(s.upper() for s in skip)}
    unknown: list[str] = []
    for name in _english(text, skipped):
        if name.lower() not in known:
            unknown.append(name)
    for name, endings in _chinese_firms(text):
        if not any(e in known for e in endings):
            unknown.append(name)
    unknown += [name for name in _chinese_people(text) if name not in known]
    return list(dict.fromkeys(unknown))
