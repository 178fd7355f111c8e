"""cut_off: a text that stops mid-sentence ("…但考虑到", "因此，多头论").

Why: a small model runs into its length limit or simply stops; the half sentence reads as a
conclusion that was never drawn, and the next agent argues from it. Code never shortens a text
to make it fit: the model is asked once to write a complete sentence within the field's limit,
and a half sentence still there is dropped like any violating sentence.

Flagged:
- any text (a prose field or a bullet) ending in a dangling connective: "但考虑到", "因此，", "以及",
  "because", "and" — a word that opens what never came — or on a comma;
- any text whose last sentence has no end punctuation right after a bare connective clause
  ("因此，多头论": the conclusion "因此" opens was cut);
- a prose field (not a bullet: bullets and headlines are short labels) that ends its earlier
  sentences with 。！？ but not its last one.

Not flagged: a one-sentence headline without a full stop ("盈利增长稳健，技术面中期向上"), a bullet
without one ("扣非净利同比 30.0%"), a text ending in a word that merely ends like a connective
("轻仓参与", "这是合理的").
"""

from __future__ import annotations

import re

from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import clauses, sentences
from stockdesk.shared.claims.violation import Violation

TERMINAL = set("。！？!?.…．」』”’）)》】;；\"'")
_TRAILING = "，,、：:；;-—…．. \t\n"  # stripped before looking for a dangling word
_CJK_CONNECTIVES = (
    "但考虑到", "考虑到", "鉴于", "由于", "因为", "因此", "所以", "但是", "然而", "而且", "并且", "以及",
    "此外", "另外", "尽管", "虽然", "如果", "假如", "一旦", "从而", "进而", "因而", "导致", "使得",
    "包括", "例如", "比如", "加之", "加上", "随着", "对于", "关于", "基于", "相比", "认为", "表明",
    "其中", "综上所述", "综上", "总之", "但", "且", "而", "或", "若",
)  # fmt: skip
_EN_CONNECTIVES = (
    "and", "or", "but", "because", "therefore", "however", "although", "though", "whereas", "while",
    "with", "of", "the", "an", "to", "for", "by", "from", "that", "which", "than", "as", "since",
    "including", "due to",
)  # fmt: skip
_DANGLING = re.compile(
    "(?:" + "|".join(sorted(_CJK_CONNECTIVES, key=len, reverse=True)) + ")$"
    r"|\b(?:" + "|".join(_EN_CONNECTIVES) + r")$",
    re.IGNORECASE,
)
# a clause that is a connective alone, opening a conclusion that must follow it
_BARE_LINK = re.compile(
    r"(?:但是|但|然而|不过|因此|所以|因而|从而|故而|故|于是|综上所述|综上|总之|总的来说|总体来看"
    r"|therefore|thus|hence|so|but|however)",
    re.IGNORECASE,
)
_OPEN_END = set("，,、：:—-")  # a text never ends on these
_EARLIER_END = re.compile(r"[。！？!?]|\.(?=\s)")


def _why_cut(text: str, prose: bool) -> tuple[str, str] | None:
    """(what is wrong, the term) when `text` stops mid-sentence; None when it ends properly."""
    stripped = text.strip()
    bare = stripped.rstrip(_TRAILING)
    dangling = _DANGLING.search(bare)
    if dangling:
        return f"以“{dangling.group(0)}”结尾，后面的话没有写出来", dangling.group(0)
    if stripped and stripped[-1] in _OPEN_END:
        return f"以“{stripped[-1]}”结尾，句子没有写完", stripped[-1]
    if not stripped or stripped[-1] in TERMINAL:
        return None
    last = sentences(stripped)[-1] if sentences(stripped) else stripped
    parts = clauses(last)
    if len(parts) >= 2 and _BARE_LINK.fullmatch(parts[-2]):
        return f"“{parts[-2]}，”之后只有半句“{parts[-1]}”", parts[-2]
    if prose and _EARLIER_END.search(stripped[: len(stripped) - len(last)]):
        return "前面的句子都有句末标点，最后一句没有，像是写到一半", "句末标点"
    return None


def cut_off(field: str, item: int | None, text: str, *, prose: bool) -> list[Violation]:
    """The last sentence of `text` when it stops mid-sentence; `prose`: a prose field, not a bullet."""
    found = _why_cut(text, prose)
    if found is None:
        return []
    why, term = found
    units = sentences(text)
    last = units[-1] if units else text.strip()
    detail = (
        f"「{last}」没有写完（{why}）：把这一字段写成完整的句子并以句号结束，"
        "总长度不超过该字段的字数上限；写不下就少写一句，不要停在半句。"
    )
    return [Claim(field, item, last, last).violation("cut_off", detail, term)]
