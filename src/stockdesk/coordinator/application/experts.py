"""Expert names as users type them: short (`valuation,technical`) or full, one list for every command."""

from __future__ import annotations

from stockdesk.coordinator.domain.model.enums import ALL_EXPERTS, ExpertName
from stockdesk.shared.errors import BadRequestException

SHORT_NAMES = {e.value.split("_")[0]: e for e in ALL_EXPERTS}  # valuation, technical, financial, ...


def parse_experts(value: str | None) -> list[ExpertName]:
    """`valuation,technical` or full names; unknown names are a one-line error listing the valid ones."""
    if not value:
        return list(ALL_EXPERTS)
    chosen: list[ExpertName] = []
    for raw in (part.strip().lower() for part in value.split(",") if part.strip()):
        expert = SHORT_NAMES.get(raw) or next((e for e in ALL_EXPERTS if e.value == raw), None)
        if expert is None:
            valid = ", ".join(SHORT_NAMES)
            raise BadRequestException(f"unknown expert '{raw}'; choose from: {valid}", code="UNKNOWN_EXPERT")
        chosen.append(expert)
    return list(dict.fromkeys(chosen))
