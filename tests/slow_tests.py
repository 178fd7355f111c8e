"""The `slow` marker, kept honest: slow tests are counted in the summary, the others never load the model.

`make test` runs the slow tests (the real embedded model, the real sample download) and the summary
says how many ran and how; `make test-fast` deselects them and the summary says that too, so a run
that skipped them cannot pass for a full one. A test without the marker that starts the embedded
model fails: the marker is how a reader learns which tests wait minutes on the real model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from stockdesk.llm_platform.domain.exceptions import LocalModelError
from stockdesk.llm_platform.infrastructure.embedded.server import EmbeddedServer

SLOW = "slow"
LABEL = "slow (real embedded model / real sample download)"
_outcomes: dict[str, str] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """One outcome per slow test: its call, or its setup when that skipped or failed."""
    if SLOW not in report.keywords:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _outcomes[report.nodeid] = "error" if report.when == "setup" and report.failed else report.outcome
    elif report.when == "teardown" and report.failed:
        _outcomes[report.nodeid] = "error"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    deselected = [i for i in terminalreporter.stats.get("deselected", []) if i.get_closest_marker(SLOW)]
    if _outcomes:
        counts = Counter(_outcomes.values())
        parts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        terminalreporter.write_line(f"{LABEL}: {len(_outcomes)} ran: {parts}")
    if deselected:
        terminalreporter.write_line(
            f"{LABEL}: {len(deselected)} deselected (-m 'not slow'); `make test` runs them"
        )


@pytest.fixture(autouse=True)
def real_model_only_when_marked_slow(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Outside `slow` tests, starting the embedded model is refused and fails the test."""
    if request.node.get_closest_marker(SLOW) is not None:
        yield
        return
    started: list[str] = []

    def refuse(self: EmbeddedServer) -> None:
        started.append(request.node.nodeid)
        raise LocalModelError(f"{request.node.nodeid} starts the real embedded model: mark it slow")

    monkeypatch.setattr(EmbeddedServer, "_start", refuse)
    yield
    if started:
        pytest.fail(f"{started[0]} started the real embedded model without the `slow` marker")
