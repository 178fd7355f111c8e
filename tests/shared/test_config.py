"""Settings: env over TOML, secrets only as set/unset, provider aliases."""

from __future__ import annotations

from pathlib import Path

import pytest

from stockdesk.shared.config import EMBEDDED_ALIAS, Settings


def test_defaults_use_embedded_model_and_sqlite_in_home(isolated_home: Path) -> None:
    settings = Settings()
    assert settings.home == isolated_home
    assert settings.effective_database_url == f"sqlite:///{isolated_home / 'stockdesk.db'}"
    assert [a.name for a in settings.resolved_aliases()] == [EMBEDDED_ALIAS]


def test_env_overrides_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "stockdesk.toml").write_text(
        "llm_timeout_seconds = 30\nllm_max_retries = 5\n"
        '[[llm_aliases]]\nname = "deepseek"\nbase_url = "https://api.deepseek.com"\n'
        'model = "deepseek-chat"\napi_key_env = "DEEPSEEK_API_KEY"\npriority = 5\ntags = ["reasoning"]\n'
    )
    monkeypatch.setenv("STOCKDESK_LLM_MAX_RETRIES", "1")
    settings = Settings()
    assert settings.llm_timeout_seconds == 30  # from TOML
    assert settings.llm_max_retries == 1  # env wins
    aliases = settings.resolved_aliases()
    assert [a.name for a in aliases] == ["deepseek"]  # a remote is configured: no silent local fallback
    assert aliases[0].tags == ["reasoning"]


def test_quick_remote_settings_and_optional_local_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STOCKDESK_LLM_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.setenv("STOCKDESK_LLM_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("STOCKDESK_LLM_FALLBACK_TO_LOCAL", "true")
    aliases = Settings().resolved_aliases()
    assert [(a.name, a.api_key_env) for a in aliases] == [
        ("default", "OPENAI_API_KEY"),
        (EMBEDDED_ALIAS, None),
    ]


def test_redacted_config_never_contains_secret_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-very-secret-value-123")
    monkeypatch.setenv("STOCKDESK_LLM_BASE_URL", "https://api.deepseek.com")
    monkeypatch.setenv("STOCKDESK_LLM_MODEL", "deepseek-chat")
    monkeypatch.setenv("STOCKDESK_LLM_API_KEY_ENV", "DEEPSEEK_API_KEY")
    monkeypatch.setenv("STOCKDESK_DATABASE_URL", "postgresql+psycopg://desk:hunter2pass@db:5432/stockdesk")
    data = Settings().redacted()
    text = str(data)
    assert "sk-very-secret-value-123" not in text and "hunter2pass" not in text
    assert data["secrets"]["DEEPSEEK_API_KEY"] == "<set>"
    assert data["llm_aliases"][0]["api_key"] == "<set>"
    assert data["database_url"] == "postgresql+psycopg://desk:***@db:5432/stockdesk"
