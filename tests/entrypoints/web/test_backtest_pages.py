"""The strategy lab's backtest form over HTTP: fields from the families' schema, the result (metrics
with units, the NAV chart) equal to what REST scores, refusals in the page's language.

A real app and SQLite store (six A-shares, tests/strategy_lab/support.py); no model is called.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.entrypoints.web.pages.backtest_view import ERROR_KEYS, FAMILY_FIELDS, default_values
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.params import FAMILIES, FAMILY_ALLOWED, validate_params
from stockdesk.strategy_lab.presentation.cli.tables import ROWS, STRATEGY_ONLY
from tests.api_support import api_client
from tests.strategy_lab.support import FAMILY_PARAMS, populate

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
START = "2023-07-01"


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built = AppContainer(settings)
    populate(built.database)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def form(family: str = "momentum", /, **fields: str) -> dict[str, str]:
    """The backtest form as a browser sends it: every family's fields, `family`'s set from the
    test store's sample (tests/strategy_lab/support.py), the others at their defaults."""
    sent = {
        f"param.{fam}.{name}": text for fam, names in default_values().items() for name, text in names.items()
    }
    sent |= {
        f"param.{family}.{name}": str(v)
        for name, v in FAMILY_PARAMS[family].items()
        if name != "strategy_type"
    }
    return sent | {"family": family, "universe": "", "start": START, "end": "", "capital": "1000000"} | fields


def selects(page: str) -> dict[str, tuple[list[str], str | None]]:
    """Each <select name=...>: its option values and the selected one."""
    found = {}
    for name, body in re.findall(r'<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        options = re.findall(r'<option value="([^"]*)"( selected)?>', body)
        found[name] = ([v for v, _ in options], next((v for v, chosen in options if chosen), None))
    return found


def test_the_lab_offers_the_backtest_form_generated_from_each_familys_schema(client: TestClient) -> None:
    page = client.get("/strategy").text
    assert 'action="/strategy/backtest"' in page and "Rules only · no LLM" in page
    assert 'id="run-needs-llm"' in page  # the run form says it has no rules-only mode, and where that is
    fields = selects(page)
    assert fields["family"] == (list(FAMILIES), "momentum")
    for family, allowed in FAMILY_ALLOWED.items():
        for name, values in allowed.items():
            assert fields[f"param.{family}.{name}"] == ([str(v) for v in values], str(values[0])), name
        hidden = f'<fieldset class="family-params" data-family="{family}" hidden>' in page
        assert hidden == (family != "momentum")
    assert 'data-suggest-multi list="bt-universe-list"' in page and 'name="capital"' in page
    zh = client.get("/strategy", headers=ZH).text
    assert "回测一组参数" in zh and "动量回看期" in zh and "交易日" in zh


@pytest.mark.parametrize("family", FAMILIES)
def test_every_familys_defaults_are_a_valid_set(family: str) -> None:
    chosen = default_values()[family]
    typed = {name: FAMILY_ALLOWED[family][name][0] for name in chosen}
    assert validate_params({"strategy_type": family, **typed}).strategy_type == family


@pytest.mark.parametrize("family", FAMILIES)
def test_a_backtest_from_the_form_shows_what_rest_scores_with_units_and_the_nav_chart(
    client: TestClient, family: str
) -> None:
    page = client.post("/strategy/backtest", data=form(family))
    assert page.status_code == 200, page.text
    rest = client.post(
        "/api/v1/strategy/backtest", json={"params": FAMILY_PARAMS[family], "start": START}
    ).json()
    rows = dict(
        re.findall(
            r'<tr data-metric="(\w+)"><th scope="row">[^<]+</th><td class="num">([^<]+)</td>', page.text
        )
    )
    for _, name, spec in (*ROWS, *STRATEGY_ONLY):
        assert rows[name] == spec.format(rest["metrics"][name]), name  # REST's figure, in its unit
    assert rows["annual_return"].endswith("%") and rows["turnover"].endswith("×")
    spec = json.loads(html.unescape(re.search(r'class="chart" data-spec="([^"]+)"', page.text).group(1)))
    assert spec["id"] == "strategy-equity" and spec["x"][0] == rest["equity_curve"][0]["day"]
    assert len(spec["x"]) == len(rest["equity_curve"])
    assert spec["panels"][0]["y_label"] == "NAV"
    assert f"{rest['start']} – {rest['end']}" in page.text
    assert selects(page.text)["family"][1] == family  # the form comes back as sent, to try another set


REFUSED_PARAMS = [
    ("momentum", {"momentum_period": "30", "ma_periods": "20"},
     "Momentum lookback (30) must not exceed Trend moving average (20).", "动量回看期（30）不得超过趋势均线"),
    ("mean_reversion", {"entry_z": "1.0", "exit_z": "1.0"},
     "Exit z-score (1.0) must be below Entry z-score (1.0).", "离场 Z 分数（1.0）必须低于入场 Z 分数（1.0）"),
    ("mean_reversion", {"resample": "D", "resample_offset": "2"},
     "Rebalancing day offset must be 0 when Rebalancing is D (given: 2).", "调仓日偏移必须为 0"),
    ("volatility", {"vol_period": "60", "trend_ma": "60", "target_vol": "0.3", "max_vol": "0.25"},
     "Target volatility (0.3) must be below Highest volatility held (0.25).", "目标波动率（0.3）必须低于"),
    ("volatility", {"vol_period": "120", "trend_ma": "60"},
     "Trend filter moving average (60) must be 0 (no filter) or at least Volatility window (120).", "不过滤"),
    ("momentum", {"momentum_period": "7"},
     "Momentum lookback: 7 is not allowed; allowed: 5, 10, 20, 30.", "动量回看期：不允许取 7"),
]  # fmt: skip


@pytest.mark.parametrize(("family", "changes", "english", "chinese"), REFUSED_PARAMS)
def test_a_set_that_breaks_its_familys_rules_is_refused_in_the_page_language(
    client: TestClient, family: str, changes: dict[str, str], english: str, chinese: str
) -> None:
    sent = form(family, **{f"param.{family}.{name}": value for name, value in changes.items()})
    refused = client.post("/strategy/backtest", data=sent)
    assert refused.status_code == 400
    assert 'data-code="INVALID_STRATEGY_PARAMS"' in refused.text and english in refused.text
    assert 'id="backtest-result"' not in refused.text
    for name, value in changes.items():  # the form comes back with the values as sent
        if value in [str(v) for v in FAMILY_ALLOWED[family][name]]:
            assert selects(refused.text)[f"param.{family}.{name}"][1] == value
    zh = client.post("/strategy/backtest", data=sent, headers=ZH).text
    assert chinese in zh and "回测未运行（400）" in zh


REFUSED_FORMS = [
    ({"family": "trend"}, 400, "UNKNOWN_FAMILY", "“trend” is not one of the lab's strategy families."),
    ({"start": "2023-13-01"}, 400, "INVALID_DATE", "“2023-13-01” is not a date (YYYY-MM-DD)."),
    ({"capital": "0"}, 400, "INVALID_CAPITAL", "Capital “0” is not a positive amount."),
    ({"universe": "600001.SH, 999999.SH"}, 400, "INVALID_UNIVERSE", "Not in the store: 999999.SH."),
    ({"start": "2024-06-01", "end": "2024-01-01"}, 400, "INVALID_BACKTEST_WINDOW",
     "The window is empty: 2024-06-01 is not before 2024-01-01."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "status", "code", "english"), REFUSED_FORMS, ids=[c[2] for c in REFUSED_FORMS]
)
def test_a_refused_window_universe_or_capital_has_its_own_code_and_words(
    client: TestClient, fields: dict[str, str], status: int, code: str, english: str
) -> None:
    refused = client.post("/strategy/backtest", data=form(**fields))
    assert refused.status_code == status and f'data-code="{code}"' in refused.text
    assert english in html.unescape(refused.text)
    zh = client.post("/strategy/backtest", data=form(**fields), headers=ZH).text
    assert "回测未运行" in zh and english not in html.unescape(zh)


def test_every_parameter_unit_value_and_refusal_is_worded_in_both_languages() -> None:
    keys: set[str] = set(ERROR_KEYS.values())
    for fields in FAMILY_FIELDS.values():
        for f in fields:
            keys.add(f"strategy.param.{f.name}")
            keys |= {f"strategy.unit.{f.unit}"} if f.unit else set()
            keys |= {c.word for c in f.choices if c.word}
    for lang in ("en", "zh"):
        missing = sorted(k for k in keys if k not in catalog(lang))
        assert not missing, f"{lang}: {missing}"
