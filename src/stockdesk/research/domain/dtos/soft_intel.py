"""Outputs of the macro intelligence expert and the catalyst detective (what the LLM must return)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

ShortText = Annotated[str, Field(max_length=160)]


class IntelDimensionAnalysis(BaseModel):
    dimension: str = Field(description="the dimension's topic as given in the input")
    assessment: str = Field(min_length=1, max_length=200)
    key_points: list[ShortText] = Field(default_factory=list, max_length=3)


class MacroIntelligenceOutput(BaseModel):
    macro_environment: Literal["Favorable", "Neutral", "Unfavorable"]
    confidence_score: float = Field(ge=0.0, le=1.0)
    macro_summary: str = Field(min_length=1, max_length=400)
    dimension_analyses: list[IntelDimensionAnalysis] = Field(max_length=4)
    key_opportunities: list[ShortText] = Field(default_factory=list, max_length=4)
    key_risks: list[ShortText] = Field(default_factory=list, max_length=4)
    information_sources: list[str] = Field(default_factory=list, max_length=8)


Level = Literal["High", "Medium", "Low"]


class Catalyst(BaseModel):
    event: str = Field(min_length=1, max_length=160)
    expected_impact: Level
    timeframe: Literal["short-term", "medium-term", "long-term"]
    probability: Level


class CatalystDetectiveOutput(BaseModel):
    catalyst_assessment: Literal["Positive", "Neutral", "Negative"]
    confidence_score: float = Field(ge=0.0, le=1.0)
    catalyst_summary: str = Field(min_length=1, max_length=400)
    dimension_analyses: list[IntelDimensionAnalysis] = Field(max_length=4)
    positive_catalysts: list[Catalyst] = Field(default_factory=list, max_length=4)
    negative_catalysts: list[Catalyst] = Field(default_factory=list, max_length=4)
    information_sources: list[str] = Field(default_factory=list, max_length=8)
