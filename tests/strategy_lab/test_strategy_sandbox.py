"""The sandbox holds even when the allowlist is bypassed (issue 17).

The check is switched off the test-only way (monkeypatching the sandbox module's reference to it) and
a test template renders hostile code; the worker process must still show an empty environment,
refuse file writes and opens, and enforce its memory, CPU and wall-clock limits, each reported as a
StrategyExecutionError the loop feeds back. The escapes its confinement stops (issue 33: other
users, namespaces, seccomp) are tried in test_sandbox_escapes.py.
"""

from __future__ import annotations

import io
import os
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.dtos import BacktestWindow, IterationStatus, RunConfig, RunStatus
from stockdesk.strategy_lab.domain.errors import StrategyExecutionError, UnsafeStrategyCodeError
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import ProcessSandbox, SandboxLimits
from stockdesk.strategy_lab.infrastructure.sandbox.worker import decode_weights, encode_weights
from tests.conftest import scripted_service
from tests.strategy_lab.sandbox_support import (
    CLOSES,
    FACTS,
    FAILED,
    GENEROUS,
    PARAMETERS,
    HostileTemplate,
    run,
)
from tests.strategy_lab.support import PARAMS, answer, populate

WINDOW = BacktestWindow(start=date(2023, 7, 1))
pytestmark = pytest.mark.usefixtures("no_stray_workers")


def test_a_harmless_strategy_returns_its_weights(unchecked: None) -> None:
    [weights] = run("pass")
    assert isinstance(weights, pd.DataFrame)
    assert weights.to_dict() == {"A": {CLOSES.index[0]: 0.5}, "B": {CLOSES.index[0]: 0.5}}


def test_the_environment_is_empty_and_the_cwd_an_empty_directory(unchecked: None) -> None:
    assert os.environ.get("STOCKDESK_HOME")  # the parent has an environment to leak
    [message] = run("raise ValueError(str((dict(pd.io.common.os.environ), pd.io.common.os.getcwd())))")
    assert isinstance(message, str) and "ValueError: ({}, '" in message
    directory = message.split("'")[1]
    assert "stockdesk-sandbox-" in directory and not Path(directory).exists()  # removed with the worker


@pytest.mark.parametrize(
    "body",
    [
        "pd.DataFrame({'a': [1]}).to_json(TARGET)",
        "import numpy as np\nnp.lib.format.open_memmap(TARGET, mode='w+', dtype='float64', shape=(4,))",
        "pd.io.common.os.open(TARGET, pd.io.common.os.O_WRONLY | pd.io.common.os.O_CREAT)",
    ],
    ids=["to_json", "open_memmap", "os.open"],
)
def test_files_cannot_be_written_or_created(unchecked: None, tmp_path: Path, body: str) -> None:
    target = tmp_path / "pwned"
    [message] = run(body.replace("TARGET", repr(str(target))))
    assert isinstance(message, str) and "the strategy failed computing weights" in message
    assert "PermissionError: [Errno 1] Operation not permitted" in message  # the seccomp filter
    assert not target.exists()


def test_files_cannot_be_read_either(unchecked: None) -> None:
    [message] = run("pd.read_csv('/etc/hostname')")
    assert isinstance(message, str) and "PermissionError: [Errno 1] Operation not permitted" in message


def test_the_memory_limit(unchecked: None) -> None:
    # np.empty only reserves address space: without the limit this succeeds, with it it cannot
    limits = SandboxLimits(cpu_seconds=30, memory_mb=256, timeout_seconds=60.0)
    [message] = run("import numpy as np\nblock = np.empty(2**30 // 8)", limits=limits)
    assert message == "the strategy needed more than its 256 MB of memory"


def test_the_cpu_limit(unchecked: None) -> None:
    limits = SandboxLimits(cpu_seconds=1, memory_mb=1024, timeout_seconds=120.0)
    [message] = run("while True:\n    pass", limits=limits)
    assert isinstance(message, str) and message.startswith("the strategy used more than its 1 s of CPU time")


def test_the_wall_clock_timeout_kills_the_worker_and_the_next_strategy_gets_a_new_one(
    unchecked: None,
) -> None:
    limits = SandboxLimits(cpu_seconds=30, memory_mb=1024, timeout_seconds=1.0)
    sleeping = "pd.io.common.os.sys.modules['time'].sleep(60)"
    stopped, weights = run(sleeping, "pass", limits=limits)
    assert stopped == "the strategy ran longer than 1 s and was stopped"
    assert isinstance(weights, pd.DataFrame) and weights.shape == (1, 2)


def test_every_strategy_starts_in_a_fresh_process(unchecked: None) -> None:
    taint = "pd.TAINTED = True\npd.io.common.os.environ['TAINTED'] = '1'"
    look = "raise ValueError(str((pd.__dict__.get('TAINTED'), dict(pd.io.common.os.environ))))"
    tainted, seen = run(taint, look)
    assert isinstance(tainted, pd.DataFrame)
    assert isinstance(seen, str) and seen.endswith("ValueError: (None, {})")


def test_the_namespace_has_a_few_builtins_and_imports_only_pandas_and_numpy(unchecked: None) -> None:
    names, imported = run("raise ValueError(' '.join(sorted(__builtins__)))", "import os")
    assert isinstance(names, str) and "len" in names.split()
    assert not {"open", "eval", "exec", "print", "getattr"} & set(names.split())
    assert imported == f"{FAILED}: ImportError: import of 'os' is not allowed in strategy code"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("1 / 0", "the strategy failed computing weights: ZeroDivisionError: division by zero"),
        ("return [0.5]", "the strategy returned list, not a DataFrame"),
        ("return close.T", "the strategy returned weights whose columns are not symbols"),
    ],
)
def test_failures_come_back_as_one_line_errors(unchecked: None, body: str, message: str) -> None:
    assert run(body) == [message]


def test_without_the_bypass_the_check_stops_the_code_before_anything_runs(tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    template = HostileTemplate(f"pd.DataFrame({{'a': [1]}}).to_json({str(target)!r})")
    with (
        ProcessSandbox(template, GENEROUS).session() as session,
        pytest.raises(UnsafeStrategyCodeError, match="is not used by the template"),
    ):
        session.weights(PARAMETERS, CLOSES, FACTS)
    assert not target.exists()


def test_parameters_are_validated_again_whatever_built_them() -> None:
    forged = MomentumStrategyParams.model_construct(**{**PARAMS, "catalyst_type": 'x"\nimport os\n#'})
    with (
        ProcessSandbox(HostileTemplate("pass"), GENEROUS).session() as session,
        pytest.raises(ValidationError, match="catalyst_type"),
    ):
        session.weights(forged, CLOSES, FACTS)


def test_a_forged_family_is_validated_as_that_family() -> None:
    """A momentum object relabelled volatility is checked against the volatility schema: refused."""
    forged = MomentumStrategyParams.model_construct(**{**PARAMS, "strategy_type": "volatility"})
    with (
        ProcessSandbox(HostileTemplate("pass"), GENEROUS).session() as session,
        pytest.raises(ValidationError, match="vol_period"),
    ):
        session.weights(forged, CLOSES, FACTS)


def test_weights_are_read_back_without_pickle() -> None:
    frame = pd.DataFrame({"A": [0.25, np.nan]}, index=pd.DatetimeIndex(["2024-01-02", "2024-01-03"]))
    back = decode_weights(encode_weights(frame))
    pd.testing.assert_frame_equal(back, frame, check_freq=False)
    buffer = io.BytesIO()
    np.save(buffer, np.array([object()], dtype=object), allow_pickle=True)  # what a hostile child could send
    with pytest.raises(ValueError, match="allow_pickle=False"):
        decode_weights(buffer.getvalue())


def test_the_limits_come_from_settings(unchecked: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STOCKDESK_STRATEGY_TIMEOUT_SECONDS", "1.5")
    container = AppContainer(Settings())
    populate(container.database)
    container.strategy_lab.__dict__["template"] = HostileTemplate(
        "pd.io.common.os.sys.modules['time'].sleep(60)"
    )
    with pytest.raises(StrategyExecutionError, match=r"ran longer than 1\.5 s") as caught:
        container.strategy_lab.service.backtest(PARAMETERS, BacktestWindow())
    assert caught.value.details == {"limit": "timeout"}


def test_a_limit_hit_in_the_loop_is_a_backtest_failure_fed_back_to_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real template, real loop: a wall-clock limit no strategy can meet fails each backtest."""
    monkeypatch.setenv("STOCKDESK_STRATEGY_TIMEOUT_SECONDS", "0.001")
    container = AppContainer(Settings())
    provider = ScriptedProvider([answer(), answer(n_stocks=10)])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    service = container.strategy_lab.service
    run = service.execute(service.create_run(RunConfig(iterations=2, window=WINDOW)).id)
    assert run.status == RunStatus.COMPLETED
    assert [i.status for i in run.iterations] == [IterationStatus.BACKTEST_FAILED] * 2
    [error] = run.iterations[0].errors
    assert error["error_type"] == "backtest_error"
    assert error["message"] == "the strategy ran longer than 0.001 s and was stopped"
    assert "ran longer than 0.001 s" in provider.requests[1].messages[-1].content
