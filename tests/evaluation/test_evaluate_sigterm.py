"""`stockdesk evaluate` stopped by SIGTERM, then `stockdesk jobs resume`: every point is computed, and
the job is done only then (the probe's resume marked it done with "100 of 14198 points still to
compute", and a second resume said "nothing to resume"). `jobs list` shows the dead run as
`interrupted`, not running.

Real processes: the evaluation is the CLI's `main` in a child (its rules source slowed down so that
the signal lands inside a batch), the list and the resume are `python -m stockdesk`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.tasks import JobStatus, TaskCounts
from tests.evaluation.market import populate, symbols

NAMES = symbols(4)
ARGS = ["evaluate", "--symbols", ",".join(NAMES), "--from", "2022-01-03", "--to", "2023-12-29",
        "--every", "10", "--horizons", "5"]  # fmt: skip
WAIT_SECONDS = 90  # a guard against hanging, not a timing assertion

# `stockdesk evaluate` itself, with a rules source that takes 0.3 s per batch of 5 points
CHILD = textwrap.dedent(
    """
    import sys, time
    from stockdesk.entrypoints.cli import main
    from stockdesk.evaluation.infrastructure.adapters.rules_source import RulesVerdictSource

    original = RulesVerdictSource.verdicts

    def slow(self, points, experts):
        found = original(self, points, experts)
        time.sleep(0.3)
        return found

    RulesVerdictSource.verdicts = slow
    RulesVerdictSource.batch_size = 5
    sys.argv[1:] = sys.argv[2:]
    main()
    """
)


def stockdesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160"}  # the table's columns whole, not cut to 80
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def terminated_evaluation(container: AppContainer, tmp_path: Path) -> tuple[str, TaskCounts]:
    """Start the evaluation in a child, SIGTERM it once some points are done and a batch is in its
    hands; the job's id and its counts right after."""
    script = tmp_path / "evaluate.py"
    script.write_text(CHILD)
    with (tmp_path / "child.log").open("w") as log:
        child = subprocess.Popen([sys.executable, str(script), "-", *ARGS], stdout=log, stderr=log)
    store = container.evaluation.tasks
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            assert child.poll() is None, (tmp_path / "child.log").read_text()
            assert time.monotonic() < deadline, "the evaluation made no progress"
            jobs = store.list_jobs(kind="evaluate")  # the child is alive: reading leaves its run alone
            counts = store.counts(jobs[0].id) if jobs else TaskCounts()
            if counts.done >= 15 and counts.running:
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGTERM
    return jobs[0].id, store.counts(jobs[0].id)  # counting reads no job: what SIGTERM left


@pytest.mark.parametrize("listed_first", [False, True], ids=["resume", "list-then-resume"])
def test_a_terminated_evaluation_resumes_to_every_point_and_is_done_only_then(
    settings: Settings, tmp_path: Path, listed_first: bool
) -> None:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    store = container.evaluation.tasks
    job_id, at_kill = terminated_evaluation(container, tmp_path)
    assert at_kill.running > 0 and 15 <= at_kill.done < at_kill.total  # left in the dead run's hands

    if listed_first:
        listed = stockdesk("jobs", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        [job] = [j for j in json.loads(listed.stdout) if j["id"] == job_id]
        assert job["status"] == "interrupted" and job["live"] is False
        assert job["error"] == "interrupted: the process running it stopped"
        assert job["tasks"]["running"] == 0 and job["tasks"]["done"] == at_kill.done
        table = stockdesk("jobs", "list").stdout
        [row] = [line for line in table.splitlines() if job_id[:12] in line] or [table]
        assert "│ interrupted" in row and "│ running" not in row

    resumed = stockdesk("jobs", "resume", job_id[:12], "--workers", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert "still to compute" not in resumed.stdout + resumed.stderr
    assert store.counts(job_id) == TaskCounts(done=at_kill.total, total=at_kill.total)
    assert store.get_job(job_id).status is JobStatus.DONE  # type: ignore[union-attr]
    report = container.evaluation.service.report(job_id)
    assert len(report.points) == at_kill.total and not report.failed

    again = stockdesk("jobs", "resume", job_id[:12], "--workers", "1")
    assert again.returncode == 0 and "is done: nothing to resume" in again.stdout  # now it truly is
    container.close()
