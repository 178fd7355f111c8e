"""A killed `evaluate` resumes: the verdicts finished before the kill are never computed again."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.shared.config import Settings
from stockdesk.shared.tasks import TaskStatus
from tests.evaluation.market import populate, symbols

NAMES = symbols(4)
CONFIG = {"symbols": NAMES, "start": "2022-01-03", "end": "2023-12-29", "every": 10, "horizons": [5]}

# The real evaluation in a child process; its rules source is slowed down and logs each point it computes.
CHILD = textwrap.dedent(
    """
    import json, sys, time
    from stockdesk.entrypoints.container import AppContainer
    from stockdesk.evaluation.domain.dtos import EvaluationConfig
    from stockdesk.evaluation.infrastructure.adapters.rules_source import RulesVerdictSource

    log_path, config = sys.argv[1], json.loads(sys.argv[2])
    original = RulesVerdictSource.verdicts

    def slow(self, points, experts):
        found = original(self, points, experts)
        time.sleep(0.3)
        with open(log_path, "a") as log:
            log.writelines(f"{s}|{d}\\n" for s, d in found)
        return found

    RulesVerdictSource.verdicts = slow
    RulesVerdictSource.batch_size = 5
    AppContainer().evaluation.service.run(EvaluationConfig.model_validate(config))
    """
)


def test_a_killed_evaluation_resumes_without_recomputing_finished_points(
    settings: Settings, tmp_path: Path
) -> None:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    script, log = tmp_path / "child.py", tmp_path / "computed.log"
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script), str(log), EvaluationConfig.model_validate(CONFIG)
                              .model_dump_json()], stderr=subprocess.PIPE, text=True)  # fmt: skip
    store = container.evaluation.tasks
    deadline = time.monotonic() + 90
    done_at_kill: set[str] = set()
    while time.monotonic() < deadline and child.poll() is None:
        jobs = store.list_jobs(kind="evaluate")
        if jobs and store.counts(jobs[0].id).done >= 15:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, child.stderr.read() if child.stderr else ""
    job = store.list_jobs(kind="evaluate")[0]
    done_at_kill = {t.key for t in store.tasks(job.id, TaskStatus.DONE)}
    computed_before = log.read_text().split()
    assert 15 <= len(done_at_kill) < store.counts(job.id).total

    calls: list[str] = []
    service = container.evaluation.service
    source = service._sources[EvaluationConfig.model_validate(CONFIG).mode]()
    original = type(source).verdicts

    def counting(self, points, experts):  # type: ignore[no-untyped-def]
        calls.extend(f"{s}|{d.isoformat()}" for s, days in points.items() for d in days)
        return original(self, points, experts)

    type(source).verdicts = counting  # type: ignore[method-assign]
    try:
        report = service.run(EvaluationConfig.model_validate(CONFIG))
    finally:
        type(source).verdicts = original  # type: ignore[method-assign]
    assert report.resumed == len(done_at_kill) and not report.failed
    assert not set(calls) & done_at_kill  # nothing finished before the kill was computed again
    assert set(calls) | done_at_kill == {f"{p.symbol}|{p.as_of.isoformat()}" for p in report.points}
    assert set(computed_before) >= done_at_kill
    container.close()
