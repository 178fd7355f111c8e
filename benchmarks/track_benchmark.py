"""Benchmark: `stockdesk track` and `stockdesk track verify` over 100,000 ledger entries.

Targets: track under 10 s, verify under 5 s (this 2-core machine). The store holds N generated
A-shares over 4 years (tests.evaluation.market); the ledger gets `--entries` entries spread over
those symbols and their trading days, each with a verdict JSON the size of a real rules verdict
(about 2.5 KB: plan, reasoning, the five experts' signals), five expert voices, half of them live
(made the evening of their as_of) and half retrospective, half with a stated probability_up.
The chain is sealed by the ledger's own code and bulk-inserted (not timed); 1,000 appends through
LedgerService (one serialised transaction each) are timed separately.
Usage: python benchmarks/track_benchmark.py [--symbols 300] [--entries 100000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.evaluation.market generates the data

EXPERTS = (
    "valuation_modeler",
    "technical_analyst",
    "financial_auditor",
    "macro_intelligence",
    "catalyst_detective",
)


def verdict(action: str, i: int) -> dict:
    """A verdict shaped and sized like a real rules verdict."""
    signals = {
        name: {"expert": name, "stance": "neutral", "score": 0.1 * (k - 2), "confidence": 0.4,
               "reasons": ["PE/PB 历史分位均值 81", "格雷厄姆安全边际 -17.8%", "PEG 0.61"]}
        for k, name in enumerate(EXPERTS)
    }  # fmt: skip
    plan = {
        "action": action, "entry_price": 14.94, "atr": 0.5, "swing_low": 12.35, "swing_high": 16.69,
        "stop_loss_price": 13.44, "take_profit_price": 16.44, "risk_reward": 1.0,
        "stop_rule": "watch below: swing 12.35 +/- 0.25 ATR, clamped to 3.00 x ATR",
        "target_rule": "watch above: swing 16.69 +/- 0.25 ATR, clamped to 3.00 x ATR",
    }  # fmt: skip
    reasons = "，".join(f"{e} 中性（+0.{i % 9}）" for e in EXPERTS)
    return {
        "action": action, "confidence": 0.5 + (i % 40) / 100,
        "position_percent": 0.1 if action == "BUY" else 0.0,
        "entry_strategy": "暂不入场；参考价 14.94（2020-01-10 收盘价）",
        "stop_loss": "跌破 13.44（-10.04%）转弱", "take_profit": "突破 16.44（+10.04%）转强",
        "time_horizon": "1-3个月", "risk_warnings": [],
        "reasoning": "规则裁决（无 LLM）：综合得分 +0.15 → HOLD；" + reasons,
        "source": "rules", "trade_plan": plan,
        "rules_verdict": {"action": action, "composite": 0.147, "support": 0.6667, "signals": signals},
    }  # fmt: skip


def fill_ledger(database, names: list[str], days: list[date], count: int) -> None:  # type: ignore[no-untyped-def]
    from stockdesk.ledger.application import canonical_json, inputs_hash
    from stockdesk.ledger.domain.entry import GENESIS, is_retrospective, seal
    from stockdesk.ledger.infrastructure.persistence.ledger_store import TABLE

    now = datetime.now(UTC)
    rows, prev = [], GENESIS
    for i in range(count):
        symbol, as_of = names[i % len(names)], days[(i // len(names)) % len(days)]
        action = ("BUY", "SELL", "HOLD")[(i * 7) % 3]
        created = datetime.combine(as_of, datetime.min.time(), UTC) + timedelta(hours=20) if i % 2 else now
        fields = {
            "entry_id": f"bench-{i}", "symbol": symbol, "as_of": as_of, "created_at": created,
            "mode": "rules", "model": "rules", "action": action, "confidence": 0.6,
            "position_percent": 0.1 if action == "BUY" else 0.0,
            "probability_up": (0.4 + (i % 30) / 100) if i % 4 < 2 else None, "session_id": f"bench-{i}",
            "verdict_json": canonical_json(verdict(action, i)),
            "experts_json": canonical_json({e: {"stance": "neutral", "confidence": 0.4} for e in EXPERTS}),
            "inputs_hash": inputs_hash({"i": i}, {}, "rules", None),
            "tokens": 0, "llm_calls": 0, "cost_usd": None,
            "retrospective": is_retrospective(as_of, created),
        }  # fmt: skip
        entry = seal(fields, i + 1, prev)
        prev = entry.entry_hash
        rows.append(entry.model_dump())
    with database.engine.begin() as conn:
        for start in range(0, len(rows), 5000):
            conn.execute(TABLE.insert(), rows[start : start + 5000])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--symbols", type=int, default=300)
    parser.add_argument("--entries", type=int, default=100_000)
    args = parser.parse_args()
    os.environ["STOCKDESK_HOME"] = tempfile.mkdtemp(prefix="stockdesk-bench-")

    import pandas as pd
    from tests.evaluation.market import populate, symbols

    from stockdesk.entrypoints.container import AppContainer
    from stockdesk.evaluation.domain.track import TrackConfig
    from stockdesk.ledger.application import VerdictRecord
    from stockdesk.shared.config import Settings

    names = symbols(args.symbols)
    container = AppContainer(Settings())
    clock = time.perf_counter()
    frames = populate(container.database, names, start=date(2020, 6, 1), end=date(2024, 6, 28))
    days = [d.date() for d in pd.bdate_range(date(2021, 1, 4), date(2024, 6, 28))]
    per_symbol = len(frames["bars"]) // len(names)
    print(f"store: {len(names)} symbols x {per_symbol} days in {time.perf_counter() - clock:.1f} s")
    clock = time.perf_counter()
    fill_ledger(container.database, names, days, args.entries)
    sealed = time.perf_counter() - clock
    print(f"ledger: {args.entries:,} entries sealed and bulk-inserted in {sealed:.1f} s (not timed)")

    ledger = container.ledger.service
    clock = time.perf_counter()
    check = ledger.verify()
    verify_s = time.perf_counter() - clock
    assert check.ok and check.entries == args.entries, check.line()
    print(f"verify : {verify_s:6.2f} s = {args.entries / verify_s:10,.0f} entries/s  (target: under 5 s)")

    clock = time.perf_counter()
    report = container.evaluation.track.run(TrackConfig())
    track_s = time.perf_counter() - clock
    clock = time.perf_counter()
    text = report.model_dump_json()
    dump_s = time.perf_counter() - clock
    print(f"track  : {track_s:6.2f} s = {args.entries / track_s:10,.0f} entries/s  (target: under 10 s)")
    print(f"  + JSON of the report ({len(text) / 1e6:.0f} MB): {dump_s:.2f} s")
    print(f"  {report.headline}")

    record = VerdictRecord(
        entry_id="x", symbol=names[0], as_of=days[-1], mode="rules", model="rules", action="HOLD",
        confidence=0.5, verdict=verdict("HOLD", 0), inputs_hash="0" * 64,
    )  # fmt: skip
    clock = time.perf_counter()
    for i in range(1000):
        ledger.append(record.model_copy(update={"entry_id": f"append-{i}"}))
    append_s = time.perf_counter() - clock
    print(f"append : {1000 / append_s:10,.0f} entries/s through LedgerService (one locked transaction each)")
    container.close()


if __name__ == "__main__":
    main()
