"""`stockdesk doctor`: every check printed with its result, each fault reported with its fix (never a
crash), the store left as it was, the exit code, and `--json`. The LLM is a scripted provider that
fails the test if the doctor ever calls it; the real model is never loaded."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from alembic import command
from alembic.script import ScriptDirectory
from click.testing import Result
from rich.console import Console
from sqlalchemy import text
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.doctor import CHECKS, Check, DoctorContext, Finding, Status, run_check, run_checks
from stockdesk.entrypoints.doctor.cli import results_table, summary
from stockdesk.entrypoints.doctor.install_checks import check_model_weights, check_web_assets
from stockdesk.entrypoints.doctor.store_checks import SANDBOX_PACKAGE, check_sandbox
from stockdesk.entrypoints.web.assets import VENDOR_FILES
from stockdesk.llm_platform.infrastructure.embedded.model_files import QWEN_CODER_1_5B
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings, get_settings
from stockdesk.shared.db import Database
from tests.conftest import scripted_service

NAMES = [check.name for check in CHECKS]
STATUSES = "|".join(s.value for s in Status)


@pytest.fixture
def doctor(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Runs `stockdesk doctor ARGS` in this test's home, after setting `env`; the app's LLM is
    scripted to raise, so any call to it would fail the run."""

    def run(*args: str, env: dict[str, str] | None = None) -> Result:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        provider = ScriptedProvider([AssertionError("the doctor must not call the LLM")])
        container = AppContainer(Settings(), llm_service=scripted_service(provider))
        monkeypatch.setattr(entry, "_container", container)
        try:
            return CliRunner().invoke(entry.app, ["doctor", *args], env={"COLUMNS": "220"})
        finally:
            container.close()
            assert provider.calls == 0

    return run


def checks_of(result: Result) -> dict[str, dict[str, Any]]:
    payload = json.loads(result.stdout)
    assert [c["name"] for c in payload["checks"]] == NAMES
    return {c["name"]: c for c in payload["checks"]}


def test_the_doctor_prints_every_check_with_its_result_and_a_summary(
    doctor: Callable[..., Result],
) -> None:
    result = doctor()
    assert "Traceback" not in result.output
    for name in NAMES:
        assert re.search(rf"│ {re.escape(name)}\s+│ ({STATUSES})\s+│", result.stdout), name
    line = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(rf"{len(NAMES)} checks: \d+ ok, \d+ warn, \d+ fail, \d+ skip; .+", line), line
    failed = "failed:" in line
    assert result.exit_code == (1 if failed else 0), result.output


def test_json_has_every_check_typed_and_the_exit_code_follows_the_failures(
    doctor: Callable[..., Result],
) -> None:
    result = doctor("--json")
    payload = json.loads(result.stdout)
    checks = checks_of(result)
    for check in CHECKS:
        found = checks[check.name]
        assert found["required"] is check.required
        assert found["status"] in {s.value for s in Status} and found["found"]
        assert found["status"] != "fail" or check.required  # an optional check at worst warns
        assert found["fix"] is None or found["status"] != "ok"
    failed = any(c["status"] == "fail" for c in checks.values())
    assert payload["failed"] is failed and result.exit_code == (1 if failed else 0)
    # a fresh home: no store yet, nothing created by looking
    assert checks["store"]["status"] == "warn" and "no store yet" in checks["store"]["found"]
    assert checks["market data"]["status"] == "skip"
    assert not (get_settings().home / "stockdesk.db").exists()


# --------------------------------------------------------------------------- model weights


def test_a_file_named_like_the_weights_but_wrong_is_a_failure_with_its_fix(
    doctor: Callable[..., Result], tmp_path: Path
) -> None:
    models = tmp_path / "fake-models"
    models.mkdir()
    (models / QWEN_CODER_1_5B.file_name).write_bytes(b"not a model" * 100)
    result = doctor("--json", env={"STOCKDESK_MODELS_DIR": str(models)})
    weights = checks_of(result)["model weights"]
    assert weights["status"] == "fail"
    assert f"has 1,100 bytes; the pinned file has {QWEN_CODER_1_5B.size_bytes:,}" in weights["found"]
    assert f"delete {models / QWEN_CODER_1_5B.file_name}" in weights["fix"]
    assert result.exit_code == 1 and json.loads(result.stdout)["failed"] is True


def test_the_sha256_is_checked_once_then_known_from_its_mark_and_a_mismatch_fails(
    settings: Settings, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    data = b"weights " * 4096
    weights = models / "tiny.gguf"
    weights.write_bytes(data)
    pin = replace(
        QWEN_CODER_1_5B,
        file_name="tiny.gguf",
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )
    local = settings.model_copy(update={"models_dir_override": models})
    seen: list[tuple[int, int]] = []
    check = next(c for c in CHECKS if c.name == "model weights")

    def weights_check(**options: Any) -> Finding:
        return check_model_weights(
            DoctorContext(local, pin=pin, progress=lambda *p: seen.append(p), **options)
        )

    first = weights_check()
    assert first.status is Status.OK and "hashed now" in first.found
    assert seen[-1] == (len(data), len(data))
    seen.clear()
    second = weights_check()
    assert second.status is Status.OK and "hashed before" in second.found and seen == []  # the mark
    deep = weights_check(deep=True)
    assert deep.status is Status.OK and "hashed now" in deep.found and seen

    wrong = replace(pin, sha256="0" * 64)
    result = run_check(check, DoctorContext(local, pin=wrong))
    assert result.status is Status.FAIL
    assert "its sha256 is not the pinned 000000000000…" in result.found
    assert result.fix and f"delete {weights}" in result.fix


# --------------------------------------------------------------------------- web assets


def test_a_missing_front_end_file_is_a_failure_naming_it_with_its_fix(
    settings: Settings, tmp_path: Path
) -> None:
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    for name in VENDOR_FILES:
        (vendor / name).write_text("x")
    (vendor / "echarts.min.js").unlink()
    (vendor / "swagger-ui.css").write_text("")  # an empty file is as good as missing
    check = next(c for c in CHECKS if c.name == "web assets")
    result = run_check(check, DoctorContext(settings, vendor_dir=vendor))
    assert result.status is Status.FAIL and result.required
    assert "echarts.min.js, swagger-ui.css" in result.found
    assert result.fix and "`make web-assets`" in result.fix
    assert summary([result]) == "1 check: 0 ok, 0 warn, 1 fail, 0 skip; failed: web assets"
    shown = rendered([result])
    assert "echarts.min.js" in shown and "make web-assets" in shown

    (vendor / "echarts.min.js").write_text("x")
    (vendor / "swagger-ui.css").write_text("x")
    assert check_web_assets(DoctorContext(settings, vendor_dir=vendor)).status is Status.OK


def rendered(results: list[Any]) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(results_table(results))
    return console.export_text()


# --------------------------------------------------------------------------- the store


def _store_at_one_before_head(settings: Settings) -> tuple[Database, str, str]:
    database = Database(settings.effective_database_url)
    config = database._alembic_config()
    head = ScriptDirectory.from_config(config).get_current_head()
    before = ScriptDirectory.from_config(config).get_revision(head).down_revision
    assert isinstance(head, str) and isinstance(before, str)
    command.upgrade(config, before)
    return database, before, head


def test_a_schema_behind_head_is_reported_with_its_fix_and_left_as_it_is(
    doctor: Callable[..., Result], settings: Settings
) -> None:
    database, before, head = _store_at_one_before_head(settings)
    try:
        result = doctor("--json")
        checks = checks_of(result)
        store = checks["store"]
        assert store["status"] == "warn"
        assert f"at revision {before}; 1 migration behind head {head}: {head}" in store["found"]
        assert "`stockdesk db upgrade`" in store["fix"]
        assert checks["market data"]["status"] == "skip"
        assert database.current_revision() == before  # the doctor upgraded nothing
    finally:
        database.dispose()


def test_a_schema_from_a_newer_version_is_a_failure(
    doctor: Callable[..., Result], settings: Settings
) -> None:
    database = Database(settings.effective_database_url)
    try:
        database.upgrade()
        with database.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
        result = doctor("--json")
        store = checks_of(result)["store"]
        assert store["status"] == "fail" and "9999_from_the_future" in store["found"]
        assert "none of this version's migrations" in store["found"]
        assert result.exit_code == 1
    finally:
        database.dispose()


def test_the_data_ranges_come_per_dataset_from_the_store(
    doctor: Callable[..., Result], settings: Settings, database: Database
) -> None:
    days = pd.bdate_range("2024-01-01", "2024-01-05")
    frames = {
        "bars": pd.DataFrame(
            {"symbol": "600001.SH", "trade_date": days, "open": 10.0, "high": 11.0, "low": 9.0,
             "close": 10.0, "volume": 1e5}
        ),
    }  # fmt: skip
    DataEngineeringContainer(settings, database).import_service.import_frames("test", frames)
    data = checks_of(doctor("--json"))["market data"]
    assert data["status"] == "ok"
    assert data["found"] == "bars: 1 symbol, 5 rows, 2024-01-01 to 2024-01-05"
    empty_store = checks_of(doctor("--json"))["store"]
    assert empty_store["status"] == "ok" and "(head)" in empty_store["found"]


def test_an_empty_store_warns_with_how_to_load_data(
    doctor: Callable[..., Result], database: Database
) -> None:
    database.upgrade()
    data = checks_of(doctor("--json"))["market data"]
    assert data["status"] == "warn" and "`stockdesk data load-sample`" in data["fix"]


def test_an_unreachable_database_is_a_failure_not_a_crash(doctor: Callable[..., Result]) -> None:
    result = doctor("--json", env={"STOCKDESK_DATABASE_URL": "postgresql://u:hunter2pass@127.0.0.1:1/none"})
    checks = checks_of(result)
    assert checks["store"]["status"] == "fail" and "STOCKDESK_DATABASE_URL" in checks["store"]["fix"]
    assert "hunter2pass" not in result.stdout
    assert checks["market data"]["status"] == "skip" and result.exit_code == 1


# --------------------------------------------------------------------------- LLM aliases


def test_aliases_show_keys_only_as_set_or_not_and_none_usable_fails(doctor: Callable[..., Result]) -> None:
    aliases = [
        {"name": "deepseek", "base_url": "https://api.deepseek.com", "model": "deepseek-chat",
         "api_key_env": "DEEPSEEK_API_KEY", "priority": 1},
        {"name": "qwen", "base_url": "https://dashscope.example/v1", "model": "qwen-plus",
         "api_key_env": "DASHSCOPE_API_KEY", "priority": 2},
    ]  # fmt: skip
    env = {"STOCKDESK_LLM_ALIASES": json.dumps(aliases), "DEEPSEEK_API_KEY": "sk-doctor-secret-0123456789"}
    result = doctor("--json", env=env)
    found = checks_of(result)["LLM aliases"]
    assert found["status"] == "warn"
    assert (
        "deepseek: openai-compatible, deepseek-chat at https://api.deepseek.com, key $DEEPSEEK_API_KEY set"
        in (found["found"])
    )
    assert "key $DASHSCOPE_API_KEY not set" in found["found"] and "$DASHSCOPE_API_KEY" in found["fix"]
    assert "sk-doctor-secret-0123456789" not in result.output
    weights = checks_of(result)["model weights"]
    if not (get_settings().models_dir / QWEN_CODER_1_5B.file_name).exists():  # remote only: not needed
        assert weights["status"] == "skip" and "every configured LLM alias is remote" in weights["found"]

    none_usable = doctor("--json", env={"DEEPSEEK_API_KEY": ""})
    assert checks_of(none_usable)["LLM aliases"]["status"] == "fail" and none_usable.exit_code == 1


# --------------------------------------------------------------------------- sandbox layers


@dataclass(frozen=True)
class Layer:
    name: str
    active: bool
    detail: str


def test_the_sandbox_layers_are_shown_when_the_sandbox_reports_them(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    sandbox = importlib.import_module(SANDBOX_PACKAGE)
    monkeypatch.delattr(sandbox, "sandbox_layers", raising=False)
    absent = check_sandbox(DoctorContext(settings))
    assert (
        absent.status is Status.SKIP and absent.found == "sandbox layer report not available in this version"
    )

    layers = [Layer("unprivileged user", True, "uid 65534"), Layer("network namespace", False, "EPERM")]
    monkeypatch.setattr(sandbox, "sandbox_layers", lambda: layers, raising=False)
    some_off = run_check(next(c for c in CHECKS if c.name == "sandbox layers"), DoctorContext(settings))
    assert some_off.status is Status.WARN and not some_off.required
    assert some_off.found == "unprivileged user: on (uid 65534)\nnetwork namespace: off (EPERM)"
    assert some_off.fix and "network namespace" in some_off.fix

    monkeypatch.setattr(sandbox, "sandbox_layers", lambda: layers[:1], raising=False)
    assert check_sandbox(DoctorContext(settings)).status is Status.OK


# --------------------------------------------------------------------------- the framework


def test_a_check_that_raises_is_reported_not_raised(settings: Settings) -> None:
    def broken(_context: DoctorContext) -> Finding:
        raise RuntimeError("the probe fell over\nsecond line")

    required = run_checks(
        [Check("needed", True, broken), Check("extra", False, broken)], DoctorContext(settings)
    )
    assert [(r.status, r.found) for r in required] == [
        (Status.FAIL, "the check could not run: RuntimeError: the probe fell over"),
        (Status.WARN, "the check could not run: RuntimeError: the probe fell over"),
    ]
    assert required[0].fix and str(settings.log_dir) in required[0].fix


def test_notification_channels_show_their_secrets_and_a_failing_one_warns_with_its_fix(
    settings: Settings, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime

    from stockdesk.entrypoints.doctor.notify_checks import check_notifications
    from stockdesk.notifications.application import DeliveryAttempt
    from stockdesk.notifications.container import NotificationsContainer
    from stockdesk.shared.config import NotifyChannelConfig, NotifySettings

    check = Check("notification channels", False, check_notifications)
    assert run_check(check, DoctorContext(settings)).status is Status.OK  # none configured
    monkeypatch.setenv("DOC_HOOK_URL", "http://127.0.0.1:9/hook-s3cr3t")
    channels = {
        "hook": NotifyChannelConfig(type="webhook", url_env="DOC_HOOK_URL"),
        "tg": NotifyChannelConfig(type="telegram", token_env="DOC_TG_UNSET", chat_id="1"),
    }
    configured = settings.model_copy(update={"notify": NotifySettings(channels=channels)})
    database.upgrade()
    missing = run_check(check, DoctorContext(configured))
    assert missing.status is Status.WARN, missing
    assert "hook: webhook" in missing.found and "$DOC_HOOK_URL set" in missing.found
    assert "$DOC_TG_UNSET not set" in missing.found and missing.fix == "set $DOC_TG_UNSET for tg"
    assert "s3cr3t" not in missing.found

    log = NotificationsContainer(configured, database).store.log()
    for n in range(3):
        log.add(
            DeliveryAttempt(
                channel="hook", run_id=f"r{n}", digest_hash=f"h{n}", attempt=1, status="failed",
                error="connection refused", sent_at=datetime.now(UTC),
            )
        )  # fmt: skip
    failing = run_check(check, DoctorContext(configured))
    assert "failing (3 deliveries failed in a row)" in failing.found
    assert failing.fix and "hook keeps failing: `stockdesk notify test hook`" in failing.fix
