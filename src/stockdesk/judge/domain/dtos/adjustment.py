"""One change code made to the model's verdict, kept so a reader sees what and why."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Adjustment(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    what: str = Field(description="confidence | action | position | reasoning | risk_warnings ...")
    from_: Any = Field(alias="from")
    to: Any
    why: str = Field(description="in plain words, e.g. '1 of 5 voices bullish'")
    i18n: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="language -> {'why': the same in that language} (shared.wording)"
    )

    @classmethod
    def worded(cls, what: str, from_: Any, to: Any, why: dict[str, str]) -> Adjustment:
        """An adjustment whose reason is given in every language (`why`: language -> text); its
        `why` field is the English."""
        return cls(what=what, from_=from_, to=to, why=why["en"], i18n={k: {"why": v} for k, v in why.items()})
