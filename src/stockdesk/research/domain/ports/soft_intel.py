"""Ports of the two soft-intelligence experts (macro intelligence, catalyst detective)."""

from __future__ import annotations

from stockdesk.research.domain.dtos.search import (
    SearchSnapshotDTO,
)
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput, MacroIntelligenceOutput
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort

IMacroIntelligenceAgentPort = IExpertAgentPort[SearchSnapshotDTO, MacroIntelligenceOutput]


ICatalystDetectiveAgentPort = IExpertAgentPort[SearchSnapshotDTO, CatalystDetectiveOutput]
