"""Reflection: a past verdict and what followed, worded by code for the judge's prompt.

The model is shown what was said and what happened (never asked to compute it): the date, the
action, its stated probability, and the excess return over the horizon that followed, with whether
the direction was right (BUY: the excess was positive; SELL: negative; HOLD states no direction).
"""

from __future__ import annotations

from stockdesk.judge.domain.dtos.evidence import LessonInput

HEADER = "## 同一标的过往裁决及其后的结果（代码计算；只含本次日期之前已知的结果，供反思，不是新的证据）"


def lesson_line(lesson: LessonInput) -> str:
    """One lesson in one sentence, e.g. "2024-03-01 裁决 BUY（上涨概率 0.58）：其后 20 个交易日超额
    收益 -3.20%，方向错误"."""
    stated = (
        f"（上涨概率 {lesson.probability_up:.2f}）" if lesson.probability_up is not None else "（未校准）"
    )
    line = (
        f"{lesson.as_of} 裁决 {lesson.action}{stated}：其后 {lesson.horizon} 个交易日"
        f"超额收益 {lesson.excess_return * 100:+.2f}%"
    )
    if lesson.action == "BUY":
        line += "，方向正确" if lesson.excess_return > 0 else "，方向错误"
    elif lesson.action == "SELL":
        line += "，方向正确" if lesson.excess_return < 0 else "，方向错误"
    return line


def lessons_block(lessons: list[LessonInput]) -> str:
    """The prompt section; empty without lessons (the prompt is then byte-identical to one made
    without reflection, so the two arms of `evaluate --reflection` share every other call)."""
    if not lessons:
        return ""
    return "\n\n" + HEADER + "\n" + "\n".join(f"- {lesson_line(lesson)}" for lesson in lessons)
