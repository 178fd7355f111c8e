"""The strategy lab's backtest form and result (routes in `strategy.py`): one parameter set of a
template family scored on stored prices, without any model.

The form's fields are generated from the families' parameter schema (`FAMILY_ALLOWED`: each
parameter's allowed values, in order): a choice per parameter, its default the first allowed value
(a valid set in every family; a test checks). Every family's fields are on the page, named
`param.<family>.<name>`; the chosen family's are read. The form is read into the REST body
(`BacktestBody`) and run by `checked_backtest`, what `POST /api/v1/strategy/backtest` runs.
A refusal is worded from the catalogue: the parameters' by the rule the set breaks (the family's
rules as data, `family_rules`), the window's and universe's by their details.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import ValidationError

from stockdesk.entrypoints.web.pages.form_text import refused, split_list
from stockdesk.entrypoints.web.pages.strategy_view import metric_rows
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.strategy_lab.application.charts import equity_chart
from stockdesk.strategy_lab.application.family_rules import OrderRule, broken_rule
from stockdesk.strategy_lab.domain.dtos import BacktestResult
from stockdesk.strategy_lab.domain.params import DEFAULT_FAMILY, FAMILIES, FAMILY_ALLOWED
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import BacktestBody

Translate = Callable[..., str]
DEFAULT_CAPITAL = "1000000"
# the unit each parameter is counted in (a catalogue word, `strategy.unit.<unit>`); none: a choice of words
PARAM_UNITS = {
    "momentum_period": "days", "ma_periods": "days", "catalyst_lookback": "months", "n_stocks": "stocks",
    "stop_loss": "fraction", "lookback": "days", "entry_z": "sd", "exit_z": "sd", "trend_ma": "days_off",
    "vol_period": "days", "max_vol": "fraction", "target_vol": "fraction", "resample_offset": "offset",
}  # fmt: skip
ERROR_KEYS = {  # a refusal's code -> the catalogue key that words it with its details
    "UNKNOWN_FAMILY": "strategy.backtest.error.family",
    "INVALID_DATE": "strategy.backtest.error.date",
    "INVALID_CAPITAL": "strategy.backtest.error.capital",
    "INVALID_BACKTEST_WINDOW": "strategy.backtest.error.window",
    "UNIVERSE_TOO_LARGE": "strategy.backtest.error.too_many",
    "WINDOW_TOO_LONG": "strategy.backtest.error.too_long",
}


@dataclass(frozen=True)
class ParamChoice:
    value: str  # as the form sends it (the allowed value written as Python writes it)
    word: str | None  # a catalogue key for a value that is a word (W, revenue); None: the number


@dataclass(frozen=True)
class ParamField:
    family: str
    name: str
    unit: str | None
    choices: list[ParamChoice]

    @property
    def input_name(self) -> str:
        return f"param.{self.family}.{self.name}"

    @property
    def input_id(self) -> str:
        return f"bt-{self.family}-{self.name}".replace("_", "-")


def _choices(name: str, values: list[Any]) -> list[ParamChoice]:
    return [ParamChoice(str(v), f"strategy.value.{name}.{v}" if isinstance(v, str) else None) for v in values]


FAMILY_FIELDS: dict[str, list[ParamField]] = {
    family: [
        ParamField(family, name, PARAM_UNITS.get(name), _choices(name, values))
        for name, values in allowed.items()
    ]
    for family, allowed in FAMILY_ALLOWED.items()
}


def default_values() -> dict[str, dict[str, str]]:
    """Each family's parameters at their first allowed value, as the form holds them."""
    return {family: {f.name: f.choices[0].value for f in fields} for family, fields in FAMILY_FIELDS.items()}


def _typed(family: str, name: str, text: str) -> Any:
    """The allowed value the text stands for; text no value stands for is passed on, as typed, for
    the parameters' own check to refuse with its feedback."""
    for value in FAMILY_ALLOWED[family].get(name, []):
        if str(value) == text:
            return value
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _day(text: str) -> str | None:
    text = text.strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError as exc:
        raise BadRequestException(
            f"'{text}' is not a date (YYYY-MM-DD)", code="INVALID_DATE", details={"date": text}
        ) from exc


@dataclass
class BacktestForm:
    """What the backtest form holds (as typed), so a refused form comes back filled in."""

    family: str = DEFAULT_FAMILY
    values: dict[str, dict[str, str]] = field(default_factory=default_values)
    universe: str = ""
    start: str = ""
    end: str = ""
    capital: str = DEFAULT_CAPITAL

    @classmethod
    def read(cls, sent: Mapping[str, Any]) -> BacktestForm:
        values = default_values()
        for family, names in values.items():
            for name in names:
                text = sent.get(f"param.{family}.{name}")
                if text is not None:
                    names[name] = str(text).strip()
        return cls(
            family=str(sent.get("family", DEFAULT_FAMILY)),
            values=values,
            universe=str(sent.get("universe", "")),
            start=str(sent.get("start", "")),
            end=str(sent.get("end", "")),
            capital=str(sent.get("capital", DEFAULT_CAPITAL)),
        )

    def params(self) -> dict[str, Any]:
        """The chosen family's parameters, typed as its schema allows them."""
        if self.family not in FAMILIES:
            raise BadRequestException(
                f"unknown strategy family '{self.family}'",
                code="UNKNOWN_FAMILY",
                details={"family": self.family},
            )
        chosen = self.values[self.family]
        return {"strategy_type": self.family, **{n: _typed(self.family, n, t) for n, t in chosen.items()}}

    def body(self) -> BacktestBody:
        """The REST body of this form; what it cannot be is a 400 with its own code."""
        params = self.params()
        try:
            capital = float(self.capital.strip())
        except ValueError:
            capital = 0.0
        if not capital > 0:
            raise BadRequestException(
                f"capital '{self.capital}' is not a positive amount",
                code="INVALID_CAPITAL",
                details={"capital": self.capital},
            )
        data = {
            "params": params,
            "universe": [s.upper() for s in split_list(self.universe)] or None,
            "start": _day(self.start),
            "end": _day(self.end),
            "execution": {"capital": capital},
        }
        try:
            return BacktestBody.model_validate(data)
        except ValidationError as exc:
            raise refused(exc) from exc


def refusal_lines(error: StockdeskError, form: BacktestForm, t: Translate) -> list[str]:
    """The refusal in the page's language; empty for one the catalogue does not word (the page then
    shows the message as it came)."""
    details = error.details or {}
    if error.code == "INVALID_STRATEGY_PARAMS":
        return [_param_line(d, form, t) for d in details.get("errors", [])]
    if error.code == "INVALID_UNIVERSE" and details.get("unknown"):
        return [t("strategy.backtest.error.unknown", symbols=", ".join(details["unknown"]))]
    if error.code == "INVALID_UNIVERSE" and details.get("min_bars"):
        return [t("strategy.backtest.error.history", **details)]
    key = ERROR_KEYS.get(error.code)
    return [t(key, **details)] if key else []


def _label(t: Translate, name: str) -> str:
    return t(f"strategy.param.{name}")


def _param_line(detail: Mapping[str, Any], form: BacktestForm, t: Translate) -> str:
    """One parameter refusal: the family's rule the set breaks, or the value that is not allowed."""
    name = str(detail.get("field_path", "")).removeprefix("params").lstrip(".")
    if detail.get("error_type") == "inconsistent_values":
        values = form.params()
        rule = broken_rule(form.family, values)
        if rule is not None:
            return _rule_line(rule, values, t)
    if detail.get("error_type") == "invalid_value" and name:
        allowed = ", ".join(str(v) for v in detail.get("allowed_values", []))
        return t(
            "strategy.backtest.error.value",
            field=_label(t, name),
            given=detail.get("given_value"),
            allowed=allowed,
        )
    return t("strategy.backtest.error.param", field=_label(t, name) if name else "–")


def _rule_line(rule: Any, values: Mapping[str, Any], t: Translate) -> str:
    if isinstance(rule, OrderRule):
        key = "at_least_or_off" if rule.off is not None else ("below" if rule.strict else "at_most")
        return t(
            f"strategy.backtest.rule.{key}",
            low=_label(t, rule.low), low_value=values[rule.low],
            high=_label(t, rule.high), high_value=values[rule.high],
        )  # fmt: skip
    return t(
        "strategy.backtest.rule.required_when",
        other=_label(t, rule.other), required=rule.required, given=values[rule.other],
        field=_label(t, rule.field), value=rule.value,
    )  # fmt: skip


@dataclass(frozen=True)
class BacktestView:
    """A scored backtest as the page shows it: what was scored, the figures, the NAV chart."""

    family: str
    params: list[tuple[str, str]]
    universe: list[str]
    start: str
    end: str
    capital: str
    trades: int
    blocked: int
    beat: bool
    metrics: list[dict[str, str]]
    notes: list[str]
    chart: dict[str, Any]


def backtest_view(result: BacktestResult, chart_title: str) -> BacktestView:
    params = result.params.model_dump()
    capital = result.execution.capital
    return BacktestView(
        family=str(params.pop("strategy_type")),
        params=[(name, str(value)) for name, value in params.items()],
        universe=list(result.universe),
        start=result.start.isoformat(),
        end=result.end.isoformat(),
        capital=f"{capital:,.0f}" if capital is not None else "",
        trades=len(result.trades),
        blocked=result.blocked_orders,
        beat=result.beat_benchmark,
        metrics=metric_rows(result.metrics, result.benchmark, result.gross_metrics),
        notes=list(result.notes),
        chart=equity_chart(result, chart_title).model_dump(mode="json"),
    )
