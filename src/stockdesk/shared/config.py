"""Effective configuration: `STOCKDESK_*` environment variables over an optional `stockdesk.toml`.

Secrets (API keys, tokens) are never settings fields: a setting only names the environment
variable that holds them (`api_key_env`), so nothing secret is persisted or printed.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from stockdesk.shared.redact import (
    SECRET_ENV_VARS,
    redact_data,
    register_secrets,
    secret_env_values,
    strings_in,
    url_secrets,
)

EMBEDDED_ALIAS = "local"

__all__ = [
    "EMBEDDED_ALIAS",
    "SECRET_ENV_VARS",
    "LLMAliasConfig",
    "NotifyChannelConfig",
    "NotifySettings",
    "Settings",
    "get_settings",
    "settings_error",
]


class LLMAliasConfig(BaseModel):
    """One named model endpoint the router may use."""

    name: str
    provider: Literal["openai-compatible", "embedded", "scripted"] = "openai-compatible"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = Field(
        default=None, description="Name of the environment variable holding the key (never the key)."
    )
    priority: int = Field(default=100, description="Lower is tried first.")
    tags: list[str] = Field(default_factory=list)
    timeout_seconds: float | None = None
    supports_json_schema: bool = True
    # Limits that hold across every worker of a batch run (one shared counter on Ray); None = none.
    max_concurrency: int | None = Field(
        default=None, ge=1, description="Calls in flight at once to this alias, across all workers."
    )
    requests_per_minute: int | None = Field(
        default=None, ge=1, description="Calls started per sliding minute, across all workers."
    )
    tokens_per_minute: int | None = Field(
        default=None,
        ge=1,
        description="Tokens per sliding minute across all workers: a call reserves its prompt estimate "
        "plus max_tokens and counts its real usage once answered.",
    )
    input_price_per_million: float | None = Field(
        default=None, ge=0, description="USD per million prompt tokens, for cost budgets (None = free)."
    )
    output_price_per_million: float | None = Field(
        default=None, ge=0, description="USD per million completion tokens (None = free)."
    )
    output_style: Literal["choices", "prose"] | None = Field(
        default=None,
        description="choices: the model only picks evidence-card ids and code writes every sentence; "
        "prose: the model writes, under the claim checks. None: choices for the embedded model, "
        "prose for the others.",
    )

    def style(self) -> str:
        """The output style this alias gets (see `output_style`)."""
        return self.output_style or ("choices" if self.provider == "embedded" else "prose")


CHANNEL_TYPES = ("email", "webhook", "wecom", "feishu", "dingtalk", "slack", "telegram")
# keys that would hold a secret written into the file: refused, the secret is named by its *_env key
INLINE_SECRETS = {
    "password": "password_env", "url": "url_env", "webhook": "url_env", "webhook_url": "url_env",
    "token": "token_env", "bot_token": "token_env", "secret": "secret_env", "sign_secret": "secret_env",
    "key": "url_env", "api_key": "url_env", "access_token": "url_env",
}  # fmt: skip
_NEEDS = {
    "email": ("host", "from_address", "to"),
    "webhook": ("url_env",), "wecom": ("url_env",), "feishu": ("url_env",), "dingtalk": ("url_env",),
    "slack": ("url_env",), "telegram": ("token_env", "chat_id"),
}  # fmt: skip


class NotifyChannelConfig(BaseModel):
    """One notification channel (`[notify.channels.<name>]` in stockdesk.toml). Secrets are never
    fields: `password_env`, `url_env` (a webhook's whole URL is its credential), `token_env` and
    `secret_env` name the environment variables that hold them; a secret written inline is refused."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    type: Literal["email", "webhook", "wecom", "feishu", "dingtalk", "slack", "telegram"]
    # email (SMTP with STARTTLS)
    host: str | None = None
    port: int = Field(default=587, ge=1, le=65535)
    username: str | None = None
    password_env: str | None = None
    from_address: str | None = Field(default=None, alias="from")
    to: list[str] = Field(default_factory=list)
    starttls: bool = True
    ca_file: Path | None = Field(
        default=None, description="CA certificates to trust (a private SMTP server)."
    )
    # webhooks
    url_env: str | None = None
    secret_env: str | None = Field(default=None, description="Feishu/DingTalk signing secret (optional).")
    msg_type: Literal["post", "text"] = Field(default="post", description="Feishu: rich text or plain text.")
    # telegram
    token_env: str | None = None
    chat_id: str | None = None
    api_base: str = "https://api.telegram.org"
    timeout_seconds: float = Field(default=15.0, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _no_inline_secret(cls, values: Any) -> Any:
        if isinstance(values, dict):
            for key, env_key in INLINE_SECRETS.items():
                if key in values:
                    register_secrets(str(values[key]))  # never shown, even in a log of the refusal
                    raise ValueError(
                        f"`{key}` is a secret written in the config file; put it in an environment "
                        f"variable and name that variable with `{env_key}`"
                    )
        return values

    @model_validator(mode="after")
    def _complete(self) -> NotifyChannelConfig:
        missing = [name for name in _NEEDS[self.type] if not getattr(self, name)]
        if missing:
            shown = ", ".join("from" if m == "from_address" else m for m in missing)
            raise ValueError(f"a {self.type} channel needs {shown}")
        if self.username and not self.password_env:
            raise ValueError("an email channel with a username needs password_env")
        return self

    def secret_envs(self) -> list[str]:
        """The environment variables this channel reads its secrets from."""
        return [e for e in (self.password_env, self.url_env, self.token_env, self.secret_env) if e]


class NotifySettings(BaseModel):
    """`[notify]`: the channels by name, and how failed deliveries are retried."""

    model_config = ConfigDict(extra="forbid")

    channels: dict[str, NotifyChannelConfig] = Field(default_factory=dict)
    attempts: int = Field(default=4, ge=1, le=10, description="Tries per delivery (the first included).")
    backoff_seconds: float = Field(default=2.0, ge=0, description="First wait between tries; doubles.")

    @field_validator("channels")
    @classmethod
    def _names(cls, channels: dict[str, NotifyChannelConfig]) -> dict[str, NotifyChannelConfig]:
        for name in channels:
            if not name or len(name) > 64 or not all(ch.isalnum() or ch in "-_" for ch in name):
                raise ValueError(f"channel name {name!r}: letters, digits, - and _ only (at most 64)")
        return channels


def settings_error(exc: ValidationError) -> str:
    """A settings error in one line (where, and what), without the value given (it may be a secret)."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "settings"
    message = str(first["msg"]).removeprefix("Value error, ")
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"invalid configuration: {where}: {message}{more}"


def _config_file() -> Path | None:
    explicit = os.environ.get("STOCKDESK_CONFIG")
    if explicit:
        return Path(explicit)
    for candidate in (Path.cwd() / "stockdesk.toml", _default_home() / "stockdesk.toml"):
        if candidate.is_file():
            return candidate
    return None


def _default_home() -> Path:
    return Path(os.environ.get("STOCKDESK_HOME") or Path.home() / ".stockdesk").expanduser()


class Settings(BaseSettings):
    """All knobs in one place; see README "Configuration"."""

    model_config = SettingsConfigDict(env_prefix="STOCKDESK_", extra="ignore", populate_by_name=True)

    home: Path = Field(default_factory=_default_home)
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; default SQLite in home.")
    sqlite_busy_timeout_seconds: float = Field(
        default=30.0, gt=0, description="How long a SQLite writer waits for another process's lock."
    )
    log_level: str = "INFO"
    console_log_level: str = Field(default="ERROR", description="What reaches stderr; the log file has all.")

    # A single remote provider, the quick way (becomes alias "default").
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key_env: str = "OPENAI_API_KEY"
    # More providers, with priorities and tags (TOML `[[llm_aliases]]` or JSON in the env var).
    llm_aliases: list[LLMAliasConfig] = Field(default_factory=list)
    llm_fallback_to_local: bool = Field(
        default=False, description="Append the embedded model as last resort when remotes are configured."
    )
    llm_output_style: Literal["choices", "prose"] | None = Field(
        default=None, description="Overrides every alias's output_style (STOCKDESK_LLM_OUTPUT_STYLE)."
    )
    llm_expert_notes: bool = Field(
        default=False,
        description="Choices mode: let each expert add one short note of its own "
        "(STOCKDESK_LLM_EXPERT_NOTES). "
        "Off by default: the embedded model's notes were too long or misread the cards in every demo run.",
    )
    llm_timeout_seconds: float = 240.0
    llm_max_retries: int = 2
    llm_max_output_tokens: int = 1024
    llm_cache: bool = Field(default=False, description="Opt-in response cache for reproducible reruns.")
    llm_seed: int | None = Field(
        default=42, description="Sampling seed of every LLM call (same input, same answer); empty = random."
    )
    llm_repetition_penalty: float | None = Field(
        default=0.8,
        ge=0.0,
        le=2.0,
        description="Penalty on repeated phrases (llama.cpp's DRY sampler on the embedded model).",
    )
    max_tokens_per_run: int | None = Field(default=None, description="Token budget per run; None = no limit.")

    # Embedded local model (llama.cpp via xllamacpp).
    models_dir_override: Path | None = Field(
        default=None, alias="STOCKDESK_MODELS_DIR", description="Where the assembled weights live."
    )
    local_n_ctx: int = 8192
    local_threads: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1))
    local_parallel_slots: int = 1
    local_timeout_seconds: float = Field(
        default=900.0, description="Per call on the embedded model (2 CPU cores: 30-120 s is normal)."
    )

    # Web search: providers tried in this order; "local" is the news index (no key, no network).
    search_providers: list[Literal["local", "bocha", "tavily", "searxng"]] = Field(
        default_factory=lambda: ["local"],
        description="Order of search providers; a failing one hands over to the next.",
    )
    searxng_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("STOCKDESK_SEARXNG_URL", "SEARXNG_URL"),
        description="Base URL of a self-hosted SearXNG with the JSON format enabled.",
    )
    bocha_base_url: str = "https://api.bochaai.com"
    tavily_base_url: str = "https://api.tavily.com"
    search_timeout_seconds: float = 20.0
    search_cache: bool = Field(default=True, description="Cache web results (TTL by freshness).")

    # REST API access (see README "Access control"): hosts, origins, limits per API key.
    api_allowed_hosts: list[str] = Field(
        default_factory=lambda: ["localhost", "127.0.0.1", "::1"],
        description="Host header names the server answers; others get 400 (DNS rebinding). '*' = any.",
    )
    api_cors_origins: list[str] = Field(
        default_factory=list, description="Origins allowed cross-site (CORS); empty = closed."
    )
    api_max_body_bytes: int = Field(default=1_000_000, ge=1_024, description="Larger bodies get 413.")
    api_rate_per_minute: int = Field(default=30, ge=1, description="Spending requests per key per minute.")
    api_max_concurrent_per_key: int = Field(default=2, ge=1, description="Spending requests in flight.")
    # The other route classes' limits (README "Access control and limits"), per key or client address.
    api_cheap_per_minute: int = Field(
        default=1200, ge=1, description="Cheap reads (REST GETs, static files) per key or client per minute."
    )
    api_cheap_concurrent: int = Field(default=16, ge=1, description="Cheap reads being answered at once.")
    api_page_per_minute: int = Field(
        default=300, ge=1, description="Web UI pages and forms per key or client per minute."
    )
    api_page_concurrent: int = Field(default=8, ge=1, description="Web UI pages being rendered at once.")
    api_backtest_per_minute: int = Field(
        default=10, ge=1, description="Backtests (REST and the lab's form) per key or client per minute."
    )
    api_backtest_concurrent: int = Field(
        default=1, ge=1, description="Backtests in flight per key or client (each runs a sandboxed worker)."
    )
    api_upload_per_minute: int = Field(
        default=10, ge=1, description="File imports per key or client per minute."
    )
    api_max_concurrent_uploads: int = Field(
        default=2, ge=1, description="File imports being received at once by one server process."
    )
    api_max_upload_bytes: int = Field(
        default=64_000_000, ge=1_024, description="Largest file import (the web UI's /data/import)."
    )
    api_body_idle_seconds: float = Field(
        default=30.0, gt=0, description="A request body that stops arriving this long is cut (408)."
    )
    api_max_tokens_per_request: int | None = Field(
        default=200_000, ge=1, description="LLM tokens one request (and the job it starts) may spend."
    )
    api_max_tokens_per_day: int | None = Field(
        default=2_000_000, ge=1, description="LLM tokens one key (or the local user) may spend per UTC day."
    )
    jobs_max_running: int = Field(default=1, ge=1, le=32, description="Background jobs running per kind.")
    jobs_max_queued: int = Field(default=8, ge=0, le=1000, description="Jobs waiting; more get 429.")
    jobs_max_running_per_kind: dict[str, int] = Field(
        default_factory=dict,
        description='Running jobs per kind, over jobs_max_running: {"batch_analyze": 1, "evaluation": 2}.',
    )
    ray_address: str | None = Field(
        default=None,
        description="Ray cluster for batch work (batch analyze, evaluate --workers, strategy sweep); "
        "unset = a local Ray started on demand.",
    )
    batch_workers: int = Field(
        default=2, ge=1, le=512, description="Tasks at once in a batch started over REST."
    )
    strategy_max_iterations: int = Field(
        default=50, ge=1, le=50, description="Iterations a REST run may ask."
    )
    max_universe_symbols: int = Field(
        default=500, ge=1, description="Symbols one backtest, strategy run or evaluation may cover."
    )
    max_window_days: int = Field(
        default=366 * 15, ge=30, description="Calendar days one backtest or evaluation window may span."
    )

    # Notifications (README "Notifications"): channels under [notify.channels.<name>], and the public
    # address of this server, from which a digest links to its full report.
    notify: NotifySettings = Field(default_factory=NotifySettings)
    public_url: str | None = Field(
        default=None, description="Public address of the web UI; a digest links its report under it."
    )
    # Scheduled runs (README "Scheduled runs"): whether a run syncs its watchlist from the market's
    # providers first (off on a machine that cannot reach them: the store's bars decide alone).
    scheduler_sync: bool = Field(
        default=False, description="Sync a scheduled run's watchlist from the providers before it runs."
    )
    scheduler_catch_up_hours: float = Field(
        default=6.0,
        ge=0.0,
        le=168.0,
        description="At start, the scheduler runs a fire missed this many hours back if its day has no run.",
    )

    # PDF exports (shared/exports): every HTML report printed by headless Chromium.
    chromium_path: str | None = Field(
        default=None,
        description="The Chromium that prints PDF reports; unset = `chromium` (Debian's) on PATH.",
    )
    pdf_timeout_seconds: float = Field(
        default=120.0, gt=0.0, description="Wall-clock time one PDF print may take before it is stopped."
    )

    # Panel debate (debate-panel-and-ticker-scripts.md): rounds, consensus, and each expert's tool
    # calls per turn.
    panel_min_rounds: int = Field(default=2, ge=1, le=10, description="Rounds before the moderator may end.")
    panel_max_rounds: int = Field(default=4, ge=1, le=10, description="The debate ends here whatever.")
    panel_consensus_confidence: float = Field(
        default=0.7, ge=0.0, le=1.0, description="All four agree, each at least this confident: consensus."
    )
    panel_max_tool_calls: int = Field(
        default=4, ge=0, le=20, description="Tool calls one expert may make in one turn (0: no tools)."
    )
    panel_tool_token_budget: int = Field(
        default=16_000, ge=1_000, description="Tokens one expert's turn may spend on model calls with tools."
    )

    # Strategy lab: one-way transaction costs per market, overriding the documented defaults.
    strategy_costs: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description='e.g. {"CN": {"buy": 0.0003, "sell": 0.0013}}; fractions of the traded value.',
    )
    strategy_temperature: float = Field(default=0.7, ge=0.0, le=2.0, description="Strategist sampling.")
    # Strategy sandbox: limits of one strategy execution in its worker process.
    strategy_cpu_seconds: int = Field(default=60, ge=1, le=3600, description="CPU time of one strategy run.")
    strategy_memory_mb: int = Field(
        default=2048, ge=64, description="Memory one strategy may allocate on top of numpy and pandas."
    )
    strategy_timeout_seconds: float = Field(
        default=120.0, gt=0.0, description="Wall-clock time of one strategy run before it is killed."
    )

    @field_validator("home", mode="before")
    @classmethod
    def _expand_home(cls, value: Any) -> Any:
        return Path(value).expanduser() if isinstance(value, (str, Path)) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    @property
    def config_file(self) -> Path | None:
        return _config_file()

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'stockdesk.db'}"

    @property
    def models_dir(self) -> Path:
        return self.models_dir_override or self.home / "models"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    def resolved_aliases(self) -> list[LLMAliasConfig]:
        """The router's aliases: configured remotes first by priority, the embedded model when none."""
        aliases = list(self.llm_aliases)
        if self.llm_base_url:
            aliases.append(
                LLMAliasConfig(
                    name="default",
                    base_url=self.llm_base_url,
                    model=self.llm_model,
                    api_key_env=self.llm_api_key_env or None,
                    priority=0,
                )
            )
        has_remote = any(a.provider != "embedded" for a in aliases)
        has_local = any(a.provider == "embedded" for a in aliases)
        if not has_local and (not has_remote or self.llm_fallback_to_local):
            aliases.append(
                LLMAliasConfig(
                    name=EMBEDDED_ALIAS,
                    provider="embedded",
                    priority=1000,
                    timeout_seconds=self.local_timeout_seconds,
                )
            )
        return sorted(aliases, key=lambda a: a.priority)

    def redacted(self) -> dict[str, Any]:
        """The effective configuration as plain data, with secrets replaced by set/unset markers.

        Every string goes through `redact_data`: credentials in any URL-valued setting (database,
        LLM base URL, each alias's base_url, search endpoints) and known key values are masked.
        """
        data = self.model_dump(mode="json")
        data["database_url"] = self.effective_database_url
        data["llm_aliases"] = [a.model_dump(mode="json") for a in self.resolved_aliases()]
        for alias in data["llm_aliases"]:
            env = alias.get("api_key_env")
            alias["api_key"] = None if not env else ("<set>" if os.environ.get(env) else "<not set>")
        data["config_file"] = str(self.config_file) if self.config_file else None
        data["secrets"] = {
            name: ("<set>" if os.environ.get(name) else "<not set>") for name in SECRET_ENV_VARS
        }
        return redact_data(data, self.secret_values())

    def secret_values(self) -> list[str]:
        """What is secret in these settings, for redaction: credentials in every URL-valued setting
        (wherever it is, e.g. an alias's base_url) and the keys in every environment variable an
        alias names."""
        urls = [s for s in strings_in(self.model_dump(mode="json")) if "://" in s]
        values = [v for url in [*urls, self.effective_database_url] for v in url_secrets(url)]
        key_envs = {a.api_key_env for a in self.resolved_aliases() if a.api_key_env}
        key_envs |= {env for channel in self.notify.channels.values() for env in channel.secret_envs()}
        return values + secret_env_values(sorted(key_envs))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings, read once."""
    return Settings()
