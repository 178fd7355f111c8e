"""The settings page's view model: the configuration this server loaded, read-only, and the answer of
its "Test the model" button.

Everything is read from `Settings` (and, for the data sources, from the data context's providers
and the embedded model's file), never from the LLM service: a key that is missing must not keep the
page that says so from opening. Secrets are never shown: every text goes through `redact_text` with
the settings' own secrets (URL passwords, the keys of the aliases' variables), and a key shows only
as set or not set. Labels and units are catalogue keys (`settings.field.*`, `settings.unit.*`,
`settings.word.*`): the figures are the code's, the words the page's language.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from stockdesk.data_engineering.container import PROVIDER_ENVS as DATA_ENVS
from stockdesk.data_engineering.container import MarketSource
from stockdesk.llm_platform.application.ping import PING_HEADLINE, PingAnswer
from stockdesk.llm_platform.container import embedded_model_status
from stockdesk.llm_platform.domain.dtos import LLMResult
from stockdesk.shared.config import LLMAliasConfig, Settings
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.redact import SECRET_ENV_VARS, redact_text
from stockdesk.web_search.container import PROVIDER_ENVS as SEARCH_ENVS

SIZES = (("gb", 1024**3), ("mb", 1024**2), ("kb", 1024))
# units whose English noun takes a singular for 1 (`settings.unit.<unit>_one`)
COUNTED = frozenset(
    {"tokens", "requests", "days", "symbols", "calls", "jobs", "tasks", "iterations", "rounds", "threads",
     "retries", "bytes"}
)  # fmt: skip
# failures of a ping the page explains in its own words (settings.ping.hint.<code, lower case>)
PING_HINTS = (
    "llm_unknown_alias",
    "llm_provider_error",
    "llm_unavailable",
    "llm_timeout",
    "llm_limit_wait",
    "llm_output_parse_error",
    "llm_token_budget_exceeded",
    "configuration_error",
    "local_model_error",
)


@dataclass(frozen=True)
class Shown:
    """One setting as the page shows it: its label (`settings.field.<key>`) and one of three values:
    `word` (`settings.word.<word>`: on, off, no limit...), `text` with `unit` (a figure,
    `settings.unit.<unit>` with n=text), or `text` as it is (a path, a name, a redacted URL).
    `env` names the environment variable that sets it."""

    key: str
    text: str = ""
    unit: str | None = None
    word: str | None = None
    env: str | None = None


@dataclass(frozen=True)
class Section:
    key: str  # settings.section.<key>
    rows: list[Shown]


@dataclass(frozen=True)
class AliasRow:
    """One model alias, in the order the router tries them."""

    name: str
    provider: str
    model: str | None
    base_url: str | None
    key_env: str | None
    key_set: bool
    priority: int
    tags: str
    style: str
    timeout: Shown
    limits: list[Shown]
    prices: list[Shown]


@dataclass(frozen=True)
class Credential:
    """An environment variable holding a key (or SEC's contact): set or not, and who reads it, as
    (catalogue kind, name) pairs: `settings.credentials.user.<kind>`."""

    env: str
    is_set: bool
    users: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class LocalModel:
    file: str
    folder: str
    state: str  # verified | unverified | missing (settings.word.model.<state>)
    size: Shown | None
    expected: Shown
    sha256: str


@dataclass(frozen=True)
class SettingsView:
    config_file: str | None
    sections: list[Section]
    aliases: list[AliasRow]
    local_model: LocalModel
    markets: dict[str, list[MarketSource]]
    credentials: list[Credential]

    def section(self, key: str) -> Section:
        return next(section for section in self.sections if section.key == key)


def number(value: float) -> str:
    """A figure as the page writes it: thousands separated, no trailing `.0`."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def env_of(name: str) -> str:
    return f"STOCKDESK_{name.upper()}"


def figure(
    key: str, value: float | None, unit: str, *, env: str | None = None, none: str = "no_limit"
) -> Shown:
    """A number with its unit; None shows as `none` (no limit, unless said otherwise)."""
    if value is None:
        return Shown(key, word=none, env=env)
    one = value == 1 and unit in COUNTED
    return Shown(key, number(value), unit=f"{unit}_one" if one else unit, env=env)


def size(key: str, size_bytes: int, *, env: str | None = None) -> Shown:
    """Bytes in the largest unit that keeps the figure at 10 or more (KB, MB, GB; 1024-based), so a
    1.04 GB file reads 1,065.6 MB rather than 1 GB."""
    for unit, scale in SIZES:
        if size_bytes >= 10 * scale:
            return Shown(key, number(round(size_bytes / scale, 1)), unit=unit, env=env)
    return figure(key, size_bytes, "bytes", env=env)


def flag(key: str, value: bool, *, env: str | None = None) -> Shown:
    return Shown(key, word="on" if value else "off", env=env)


class _Reader:
    """Builds the rows of one Settings, redacting every text with its secrets."""

    def __init__(self, settings: Settings):
        self.s = settings
        self._secrets = settings.secret_values()

    def text(self, key: str, value: object, *, env: str | None = None, none: str = "none") -> Shown:
        if value is None or value == "" or value == [] or value == {}:
            return Shown(key, word=none, env=env)
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value)
        elif isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items())
        return Shown(key, redact_text(str(value), self._secrets), env=env)

    def field(self, name: str, unit: str | None = None, **options: str) -> Shown:
        """A Settings field by its name: a figure with `unit`, a switch (bool), or text."""
        value = getattr(self.s, name)
        if isinstance(value, bool):
            return flag(name, value, env=env_of(name))
        if unit is not None:
            return figure(name, value, unit, env=env_of(name), **options)
        return self.text(name, value, env=env_of(name), **options)

    def redact(self, text: str | None) -> str | None:
        return redact_text(text, self._secrets) if text else text


# Each section's rows, in order: a Settings field by name, with its unit (a figure) and the word for
# None when the defaults do not fit (a bool is a switch, no unit is text); names in SPECIAL_ROWS are
# built by their own function.
Row = str | tuple[str, str | None] | tuple[str, str | None, str]
SECTIONS: dict[str, tuple[Row, ...]] = {
    "storage": ("home", "database_url", ("sqlite_busy_timeout_seconds", "seconds"), "models_dir",
                "log_dir", "cache_dir", "log_level", "console_log_level"),
    "llm": (("llm_timeout_seconds", "seconds"), ("llm_max_retries", "retries"),
            ("llm_max_output_tokens", "tokens"), ("max_tokens_per_run", "tokens"), "llm_cache",
            ("llm_seed", None, "random"), ("llm_repetition_penalty", None, "off"), "llm_output_style",
            "llm_expert_notes", "llm_fallback_to_local"),
    "local": (("local_n_ctx", "tokens"), ("local_threads", "threads"), ("local_parallel_slots", "calls"),
              ("local_timeout_seconds", "seconds")),
    "search": ("search_providers", "searxng_url", ("search_timeout_seconds", "seconds"), "search_cache"),
    "access": ("api_allowed_hosts", ("api_cors_origins", None, "closed"), "api_max_body_bytes",
               "api_max_upload_bytes", ("api_body_idle_seconds", "seconds"),
               ("api_rate_per_minute", "requests_per_minute"), ("api_max_concurrent_per_key", "requests"),
               ("api_max_tokens_per_request", "tokens"), ("api_max_tokens_per_day", "tokens_per_day"),
               ("api_cheap_per_minute", "requests_per_minute"), ("api_cheap_concurrent", "requests"),
               ("api_page_per_minute", "requests_per_minute"), ("api_page_concurrent", "requests"),
               ("api_backtest_per_minute", "requests_per_minute"), ("api_backtest_concurrent", "requests"),
               ("api_upload_per_minute", "requests_per_minute"), ("api_max_concurrent_uploads", "requests")),
    "jobs": (("jobs_max_running", "jobs"), ("jobs_max_queued", "jobs"), "jobs_max_running_per_kind",
             ("batch_workers", "tasks"), ("ray_address", None, "local_ray"),
             ("max_universe_symbols", "symbols"), ("max_window_days", "days"),
             ("strategy_max_iterations", "iterations")),
    "strategy": (("strategy_cpu_seconds", "seconds"), ("strategy_memory_mb", "mb"),
                 ("strategy_timeout_seconds", "seconds"), "strategy_temperature",
                 ("strategy_costs", None, "default_costs")),
    "panel": (("panel_min_rounds", "rounds"), ("panel_max_rounds", "rounds"), "panel_consensus_confidence",
              ("panel_max_tool_calls", "calls"), ("panel_tool_token_budget", "tokens")),
}  # fmt: skip


def _output_style(r: _Reader) -> Shown:
    style = r.s.llm_output_style
    return Shown(
        "llm_output_style", word=f"style.{style}" if style else "per_alias", env=env_of("llm_output_style")
    )


# rows that are not one field shown as it is: derived paths, a list in order, a size, a percentage
SPECIAL_ROWS: dict[str, Callable[[_Reader], Shown]] = {
    "home": lambda r: r.text("home", r.s.home, env="STOCKDESK_HOME"),
    "database_url": lambda r: r.text("database_url", r.s.effective_database_url, env=env_of("database_url")),
    "models_dir": lambda r: r.text("models_dir", r.s.models_dir, env="STOCKDESK_MODELS_DIR"),
    "log_dir": lambda r: r.text("log_dir", r.s.log_dir),
    "cache_dir": lambda r: r.text("cache_dir", r.s.cache_dir),
    "llm_output_style": _output_style,
    "search_providers": lambda r: r.text(
        "search_providers", " → ".join(r.s.search_providers), env=env_of("search_providers")
    ),
    "api_max_body_bytes": lambda r: size(
        "api_max_body_bytes", r.s.api_max_body_bytes, env=env_of("api_max_body_bytes")
    ),
    "api_max_upload_bytes": lambda r: size(
        "api_max_upload_bytes", r.s.api_max_upload_bytes, env=env_of("api_max_upload_bytes")
    ),
    "panel_consensus_confidence": lambda r: figure(
        "panel_consensus_confidence",
        r.s.panel_consensus_confidence * 100,
        "percent",
        env=env_of("panel_consensus_confidence"),
    ),
}


def _row(r: _Reader, row: Row) -> Shown:
    name, unit, *none = (row, None) if isinstance(row, str) else row
    if name in SPECIAL_ROWS:
        return SPECIAL_ROWS[name](r)
    return r.field(name, unit, **({"none": none[0]} if none else {}))


def _alias(r: _Reader, alias: LLMAliasConfig) -> AliasRow:
    timeout = alias.timeout_seconds
    return AliasRow(
        name=alias.name,
        provider=alias.provider,
        model=alias.model,
        base_url=r.redact(alias.base_url),
        key_env=alias.api_key_env,
        key_set=bool(alias.api_key_env and os.environ.get(alias.api_key_env)),
        priority=alias.priority,
        tags=", ".join(alias.tags),
        style=alias.style() if r.s.llm_output_style is None else r.s.llm_output_style,
        timeout=figure("timeout", timeout if timeout is not None else r.s.llm_timeout_seconds, "seconds"),
        limits=[
            figure("max_concurrency", alias.max_concurrency, "calls"),
            figure("requests_per_minute", alias.requests_per_minute, "requests_per_minute"),
            figure("tokens_per_minute", alias.tokens_per_minute, "tokens_per_minute"),
        ],
        prices=[
            figure("input_price", alias.input_price_per_million, "usd_per_million", none="free"),
            figure("output_price", alias.output_price_per_million, "usd_per_million", none="free"),
        ],
    )


def _local_model(r: _Reader) -> LocalModel:
    status = embedded_model_status(r.s)
    state = "verified" if status.verified else ("unverified" if status.present else "missing")
    return LocalModel(
        file=status.path.name,
        folder=r.redact(str(status.path.parent)) or "",
        state=state,
        size=size("file_size", status.size_bytes) if status.size_bytes is not None else None,
        expected=size("expected_size", status.expected_bytes),
        sha256=status.sha256,
    )


def _credentials(aliases: list[LLMAliasConfig]) -> list[Credential]:
    """Every variable that holds a key here: the providers' and the aliases', plus the known secret
    ones (unused unless something reads them)."""
    users: dict[str, list[tuple[str, str]]] = {name: [] for name in SECRET_ENV_VARS}
    for provider, env in DATA_ENVS.items():
        users.setdefault(env, []).append(("data", provider))
    for provider, env in SEARCH_ENVS.items():
        users.setdefault(env, []).append(("search", provider))
    for alias in aliases:
        if alias.api_key_env:
            users.setdefault(alias.api_key_env, []).append(("llm", alias.name))
    return [Credential(env, bool(os.environ.get(env, "").strip()), found) for env, found in users.items()]


def settings_view(settings: Settings, markets: dict[str, list[MarketSource]]) -> SettingsView:
    r = _Reader(settings)
    aliases = settings.resolved_aliases()
    config_file = settings.config_file
    return SettingsView(
        config_file=r.redact(str(config_file)) if config_file else None,
        sections=[Section(key, [_row(r, row) for row in rows]) for key, rows in SECTIONS.items()],
        aliases=[_alias(r, alias) for alias in aliases],
        local_model=_local_model(r),
        markets=markets,
        credentials=_credentials(aliases),
    )


@dataclass(frozen=True)
class PingOutcome:
    """What "Test the model" answered: the model's reply, or why there was none (`code` and its hint
    key in PING_HINTS, or "other"; `message` is the error's own, redacted, one line)."""

    alias: str | None
    ok: bool
    headline: str = PING_HEADLINE
    model: str = ""
    provider: str = ""
    answered_by: str = ""
    latency: Shown | None = None
    tokens: Shown | None = None
    attempts: int = 0
    sentiment: str = ""
    reason: str = ""
    code: str = ""
    hint: str = ""
    message: str = ""

    @classmethod
    def answered(cls, alias: str | None, result: LLMResult) -> PingOutcome:
        reply = result.parsed if isinstance(result.parsed, PingAnswer) else None
        return cls(
            alias=alias,
            ok=True,
            model=result.model,
            provider=result.provider,
            answered_by=result.alias,
            latency=Shown("latency", f"{result.latency_seconds:.2f}", unit="seconds"),
            tokens=figure("tokens", result.usage.prompt_tokens + result.usage.completion_tokens, "tokens"),
            attempts=result.attempts,
            sentiment=reply.sentiment if reply else "",
            reason=reply.reason if reply else result.text,
        )

    @classmethod
    def failed(cls, alias: str | None, error: StockdeskError) -> PingOutcome:
        code = error.code.lower()
        return cls(
            alias=alias,
            ok=False,
            code=error.code,
            hint=code if code in PING_HINTS else "other",
            message=" ".join(error.message.split()),
        )
