"""ILedgerEntries over the ledger's application interface (LedgerService)."""

from __future__ import annotations

import json
from collections.abc import Callable

from stockdesk.evaluation.domain.track import ChainStatus, ILedgerEntries, LedgerView, VoiceView
from stockdesk.ledger.application import LedgerFacts, LedgerService


def _view(facts: LedgerFacts) -> LedgerView:
    experts = {
        name: VoiceView.model_construct(stance=v["stance"], confidence=float(v["confidence"]))
        for name, v in json.loads(facts.experts_json or "{}").items()
    }
    data = facts.model_dump(exclude={"experts_json"})
    return LedgerView.model_construct(**data, experts=experts)  # typed and checked by the ledger


class LedgerEntriesAdapter(ILedgerEntries):
    def __init__(self, service: Callable[[], LedgerService]):
        self._service = service

    def entries(self) -> list[LedgerView]:
        return [_view(f) for f in self._service().facts()]

    def verify(self) -> ChainStatus:
        check = self._service().verify()
        bad = check.first_bad
        return ChainStatus(
            ok=check.ok,
            entries=check.entries,
            head_hash=check.head_hash,
            first_bad_seq=bad.seq if bad else None,
            first_bad_entry_id=bad.entry_id if bad else None,
            problem=bad.problem if bad else None,
            message=check.line(),
        )
