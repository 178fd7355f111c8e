"""Prompt pieces every research agent shares."""

from __future__ import annotations

FEEDBACK_HEADER = "\n\n## 上一次回答未通过校验，请修正\n"


def render_feedback(feedback: str | None) -> str:
    """The guard feedback appended to the user prompt on the one retry."""
    return f"{FEEDBACK_HEADER}{feedback}" if feedback else ""
