"""After a check: the feedback for one repair round, and dropping what still violates after it.

Dropping takes the offending bullet out of a list, the offending sentence out of prose, and a
loop's repeats (keeping the first time it was said, and a cut-off last fragment of it). A field
the caller marks required that would end up empty keeps a neutral placeholder instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from pydantic import BaseModel, Field

from stockdesk.shared.claims.scope import Texts, field_items
from stockdesk.shared.claims.text_units import core, normalise, split_sentences, without_link
from stockdesk.shared.claims.violation import Violation

PLACEHOLDER = "（已删除与输入矛盾的表述）"
MAX_FEEDBACK_LINES = 12
_CLAUSE_PARTS = re.compile(r"(，|(?<!\d),|,(?!\d))")
MIN_FRAGMENT = 4
_SENTENCE_END = set("。！？.!?；;")
# one line per kind, before the per-violation lines (which are capped): what every repair of it needs
KIND_LINES = {
    "cut_off": "- 有的字段在句中断开了：每个字段都写成完整的句子并以句号结束，总长度不超过该字段的字数上限；"
    "写不下就少写一句，不要写半句。",
    "action_contradiction": "- 理由和风险提示必须支持你选择的操作：不要论证另一个操作，"
    "也不要为没有选择的方案或仓位背书。",
    "side_contradiction": "- 论据只能是己方的理由：对方的事实写进“承认的风险/优势”，"
    "或者先承认再用“但……”转回己方论据。",
}


class CleanedTexts(BaseModel):
    """The texts with violations dropped; for list fields the original indices still there."""

    texts: dict[str, str | list[str]]
    kept: dict[str, list[int]] = Field(default_factory=dict)
    dropped: list[str] = Field(default_factory=list, description="'<field>: <text>' of what was removed")


def repair_feedback(violations: Iterable[Violation]) -> str:
    """Chinese feedback naming every violation, for one repair round; '' when there is none."""
    violations = list(violations)
    if not violations:
        return ""
    lines = ["以下表述与输入数据不符或没有依据，请逐条改正；改不了就删去那句，不要换个说法重复："]
    numbers = list(dict.fromkeys(v.term for v in violations if v.kind == "ungrounded_number"))
    if numbers:
        lines.append(
            "- 这些数字不在输入数据中，不得使用：" + ", ".join(numbers)
            + "。只引用输入数据里给出的数值，缺失的写“数据不足”。"
        )  # fmt: skip
    lines += [line for kind, line in KIND_LINES.items() if any(v.kind == kind for v in violations)]
    others = [f"- {v.where()}：{v.detail}" for v in violations if v.kind != "ungrounded_number"]
    lines += list(dict.fromkeys(others))[:MAX_FEEDBACK_LINES]
    return "\n".join(lines)


def _dedupe(text: str, loops: set[str]) -> tuple[str, list[str]]:
    """`text` with each looping unit (normalised sentence or clause) said once, and a cut-off
    repeat at the end (a beginning of a looping unit, without end punctuation) gone."""
    removed: list[str] = []
    seen: set[str] = set()
    kept: list[str] = []
    for piece in split_sentences(text):
        key = normalise(core(piece))
        if key in loops and key in seen:
            removed.append(core(piece))
            continue
        seen.add(key)
        parts = _CLAUSE_PARTS.split(piece)
        rebuilt: list[str] = []
        for clause, separator in zip(parts[::2], [*parts[1::2], ""], strict=True):
            clause_key = normalise(without_link(clause))
            if clause_key in loops and clause_key in seen:
                removed.append(clause.strip())
                end = clause.rstrip()[-1:]
                if end in _SENTENCE_END and rebuilt:  # keep the sentence's end on what is left
                    rebuilt[-1] = rebuilt[-1].rstrip("，, ") + end
                continue
            seen.add(clause_key)
            rebuilt.append(clause + separator)
        if normalise("".join(rebuilt)):
            kept.append("".join(rebuilt))
    if len(kept) > 1 and core(kept[-1]) == kept[-1].strip():  # no end punctuation: maybe cut off
        tail = normalise(kept[-1])
        if len(tail) >= MIN_FRAGMENT and any(unit.startswith(tail) and unit != tail for unit in loops):
            removed.append(kept.pop().strip())
    return "".join(kept).strip(), removed


def _clean_prose(text: str, violations: list[Violation]) -> tuple[str, list[str]]:
    removed: list[str] = []
    loops = {normalise(v.text) for v in violations if v.kind == "repetition"}
    if loops:
        text, removed = _dedupe(text, loops)
    bad = {normalise(v.text) for v in violations if v.kind != "repetition"}
    if normalise(text) in bad:
        return "", [*removed, text.strip()]
    kept = []
    for piece in split_sentences(text):
        if normalise(core(piece)) in bad:
            removed.append(core(piece))
        else:
            kept.append(piece)
    return "".join(kept).strip(), removed


def drop_violating(
    texts: Texts,
    violations: Iterable[Violation],
    *,
    required: Collection[str] = (),
    placeholder: str = PLACEHOLDER,
) -> CleanedTexts:
    """`texts` without what `violations` name; `required` fields never end up empty."""
    by_field: dict[str, list[Violation]] = {}
    for violation in violations:
        by_field.setdefault(violation.field, []).append(violation)
    cleaned: dict[str, str | list[str]] = {}
    kept_items: dict[str, list[int]] = {}
    dropped: list[str] = []
    for field, value in texts.items():
        found = by_field.get(field, [])
        if isinstance(value, str):
            text, removed = _clean_prose(value, found) if found else (value, [])
            dropped += [f"{field}: {r}" for r in removed]
            cleaned[field] = placeholder if not text and field in required else text
            continue
        bad_items = {v.item for v in found if v.kind != "repetition"}
        bullets: list[str] = []
        kept_items[field] = []
        for index, bullet in field_items(value):
            if index in bad_items:
                dropped.append(f"{field}[{index}]: {bullet}")
                continue
            loops = {normalise(v.text) for v in found if v.item == index and v.kind == "repetition"}
            if loops:
                bullet, removed = _dedupe(bullet, loops)
                dropped += [f"{field}[{index}]: {r}" for r in removed]
            assert index is not None
            kept_items[field].append(index)
            bullets.append(bullet)
        cleaned[field] = [placeholder] if not bullets and field in required else bullets
    return CleanedTexts(texts=cleaned, kept=kept_items, dropped=dropped)
