"""research-search-quality spec: dimension configs, query rules, filtering, ordering and logging."""

from __future__ import annotations

import inspect
import logging
from itertools import combinations

import pytest

from stockdesk.research.application import search_data as adapter_module
from stockdesk.research.application.search_data import CatalystDataAdapter, MacroDataAdapter
from stockdesk.research.application.search_result_filter import (
    ISearchResultFilter,
    RuleBasedResultFilter,
)
from stockdesk.research.domain.dtos.search import (
    CONTEXT_PLACEHOLDERS,
    FRESHNESS_ORDER,
    MAX_CORE_KEYWORDS,
    SearchDimensionConfig,
    core_keywords,
)
from stockdesk.research.domain.dtos.search_dimensions import CATALYST_DIMENSIONS, MACRO_DIMENSIONS
from stockdesk.shared.db import Database
from stockdesk.web_search.application.search_service import WebSearchItem
from tests.research.search_support import (
    AS_OF,
    RecordingProvider,
    item,
    search_service,
    store_with_news,
)

ALL_DIMENSIONS = [*MACRO_DIMENSIONS, *CATALYST_DIMENSIONS]
TEMPLATES = [(d.name, lang, d.template_for(lang)) for d in ALL_DIMENSIONS for lang in ("zh", "en")]
BY_NAME = {d.name: d for d in ALL_DIMENSIONS}
SPEC_MIN_COUNT, SPEC_MAX_COUNT = 4, 10  # the spec: fewer is too little information, more is noise
LEGAL_FRESHNESS = {"oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit"}  # what the search API accepts


def rank(freshness: str) -> int:
    return FRESHNESS_ORDER.index(freshness)  # type: ignore[arg-type]


def adapter(cls: type, database: Database, provider: RecordingProvider, result_filter=None):
    return cls(store_with_news(database), search_service(provider), result_filter or RuleBasedResultFilter())


# --- 搜索维度配置数据化 ------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [MacroDataAdapter, CatalystDataAdapter])
def test_each_dimension_search_comes_from_its_config(cls: type, database: Database) -> None:
    """配置驱动搜索循环: query, count and freshness of every search are the config's, in order."""
    provider = RecordingProvider()
    data = adapter(cls, database, provider)
    context = data.get_search_context("600519.SH", AS_OF)
    results = data.search(context)
    assert len(provider.requests) == len(data.dimensions) == 4
    for config, request, result in zip(data.dimensions, provider.requests, results, strict=True):
        assert request.query == config.render(context) == result.query
        assert (request.count, request.freshness) == (config.count, config.freshness)
        assert request.as_of == AS_OF
        assert request.symbol == ("600519.SH" if config.stock_scoped else None)


def test_adapters_hold_no_query_literals() -> None:
    """配置驱动搜索循环: the adapters' source has no query strings, counts or freshness literals."""
    source = inspect.getsource(adapter_module)
    for config in ALL_DIMENSIONS:
        assert config.query_template not in source and config.query_template_en not in source
    for literal in ("oneWeek", "oneMonth", "count=8", "count=6"):
        assert literal not in source


def test_changing_a_config_changes_the_search(database: Database) -> None:
    """配置驱动搜索循环: a different config list drives a different search, no code change."""
    provider = RecordingProvider()
    custom = SearchDimensionConfig(
        name="x", topic="测试", query_template="{stock_name} 回购", query_template_en="{stock_name} buyback",
        count=4, freshness="oneYear", stock_scoped=True,
    )  # fmt: skip
    data = MacroDataAdapter(
        store_with_news(database), search_service(provider), RuleBasedResultFilter(), [custom]
    )
    data.search(data.get_search_context("AAPL", AS_OF))
    assert [(r.query, r.count, r.freshness) for r in provider.requests] == [("Apple buyback", 4, "oneYear")]


@pytest.mark.parametrize("config", ALL_DIMENSIONS, ids=lambda c: c.name)
def test_dimension_configs_are_sound(config: SearchDimensionConfig) -> None:
    """配置可独立测试 / 测试覆盖配置合规性: <= 3 keywords, count 4..10, legal freshness, placeholders.

    The bounds are the spec's and the legal freshness values the search API's, written out here:
    checking against the code's own constants would pass whatever those constants became."""
    for template in (config.query_template, config.query_template_en):
        assert 1 <= len(core_keywords(template)) <= MAX_CORE_KEYWORDS, template
        placeholders = {p.strip("{}") for p in template.split() if p.startswith("{")}
        assert placeholders <= set(CONTEXT_PLACEHOLDERS)
    assert SPEC_MIN_COUNT <= config.count <= SPEC_MAX_COUNT
    assert config.freshness in LEGAL_FRESHNESS


def test_config_rejects_out_of_range_count() -> None:
    """count 值在合理范围内: the config type itself refuses 3 and 11 and accepts 4 and 10."""
    base = dict(name="n", topic="t", query_template="{stock_name} a", query_template_en="{stock_name} a",
                freshness="oneWeek", stock_scoped=True)  # fmt: skip
    for bad in (SPEC_MIN_COUNT - 1, SPEC_MAX_COUNT + 1):
        with pytest.raises(ValueError):
            SearchDimensionConfig(count=bad, **base)  # type: ignore[arg-type]
    for good in (SPEC_MIN_COUNT, SPEC_MAX_COUNT):
        assert SearchDimensionConfig(count=good, **base).count == good  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SearchDimensionConfig(count=6, **{**base, "freshness": "oneHour"})  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [MacroDataAdapter, CatalystDataAdapter])
def test_count_in_range(cls: type, database: Database) -> None:
    """count 值在合理范围内: every search the expert sends asks for 4 to 10 results."""
    provider = RecordingProvider()
    data = adapter(cls, database, provider)
    data.search(data.get_search_context("600519.SH", AS_OF))
    counts = [request.count for request in provider.requests]
    assert len(counts) == len(data.dimensions)
    assert all(SPEC_MIN_COUNT <= count <= SPEC_MAX_COUNT for count in counts), counts


# --- 聚焦查询构造规范 -------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "language", "template"), TEMPLATES)
def test_template_keyword_count(name: str, language: str, template: str) -> None:
    """查询模板关键词数量合规: at most 3 core keywords, stock_name/industry/year not counted."""
    keywords = core_keywords(template)
    assert len(keywords) <= 3, (name, language, keywords)
    assert not any(p in " ".join(keywords) for p in CONTEXT_PLACEHOLDERS)


def test_keyword_counting_excludes_context_and_spots_stuffing() -> None:
    """查询模板关键词数量合规: the counter — context words free, a quoted phrase once, stuffing caught."""
    assert core_keywords("{stock_name} {industry} {year} 货币政策") == ["货币政策"]
    assert core_keywords('{year} "Federal Reserve" "interest rates"') == ["Federal Reserve", "interest rates"]
    assert len(core_keywords("{stock_name} 并购重组 管理层变动 战略合作 公司治理")) == 4


@pytest.mark.parametrize("dimensions", [MACRO_DIMENSIONS, CATALYST_DIMENSIONS], ids=["macro", "catalyst"])
def test_dimensions_focus_on_their_own_topic(dimensions) -> None:
    """不同维度的查询聚焦于各自主题: no core keyword is shared by two dimensions of one expert."""
    for language in ("zh", "en"):
        keyword_sets = [{k.lower() for k in core_keywords(d.template_for(language))} for d in dimensions]
        for (a, ka), (b, kb) in combinations(zip(dimensions, keyword_sets, strict=True), 2):
            assert not ka & kb, (a.name, b.name, ka & kb)
    macro = {d.name: core_keywords(d.query_template) for d in MACRO_DIMENSIONS}
    assert not {"行业景气", "需求"} & set(macro["monetary_policy"])  # 货币政策维度不含行业景气关键词


# --- 维度级搜索参数差异化 ----------------------------------------------------------------------
def test_catalyst_fast_dimensions_are_fresher() -> None:
    """不同维度使用不同参数: company events and sentiment look back less than industry and earnings."""
    fast = [BY_NAME["company_events"], BY_NAME["market_sentiment"]]
    slow = [BY_NAME["industry_catalysts"], BY_NAME["earnings_expectations"]]
    assert max(rank(d.freshness) for d in fast) < min(rank(d.freshness) for d in slow)
    assert min(d.count for d in fast) >= max(d.count for d in slow)  # and ask for more results


def test_no_expert_uses_one_setting_for_all_dimensions() -> None:
    """不同维度使用不同参数: neither expert gives every dimension the same count and freshness."""
    for dimensions in (MACRO_DIMENSIONS, CATALYST_DIMENSIONS):
        assert len({(d.count, d.freshness) for d in dimensions}) > 1
    slow_macro = [BY_NAME["macro_economy"], BY_NAME["industry_outlook"]]
    assert all(rank(d.freshness) >= rank("oneMonth") for d in slow_macro)


# --- 搜索结果规则式过滤 -----------------------------------------------------------------------
def test_url_dedupe_keeps_the_first() -> None:
    """URL 去重: of several items with one URL only the first survives."""
    items = [item("first", "u1", "2024-02-01"), item("second", "u1", "2024-02-02"), item("other", "u2", None)]
    kept = RuleBasedResultFilter().apply(items)
    assert [i.title for i in kept] == ["first", "other"]


@pytest.mark.parametrize("title", ["", "   ", "\n\t"])
def test_blank_title_dropped(title: str) -> None:
    """空标题条目被剔除: empty or whitespace-only titles go."""
    assert RuleBasedResultFilter().apply([item(title, "u1", None)]) == []


def test_no_content_dropped() -> None:
    """无内容条目被剔除: summary and snippet both empty or blank -> dropped."""
    items = [
        item("t1", "u1", None, snippet="", summary=""),
        item("t2", "u2", None, snippet=" ", summary="\n"),
    ]
    assert RuleBasedResultFilter().apply(items) == []


def test_valid_items_survive() -> None:
    """有效条目不被误杀: a title plus summary or snippet is kept, whatever its relevance."""
    items = [
        item("only snippet", "u1", None, snippet="s", summary=""),
        item("only summary", "u2", None, snippet="", summary="s"),
        item("unrelated but valid", "u3", "2020-01-01", snippet="完全无关的内容"),
    ]
    assert RuleBasedResultFilter().apply(items) == items


def test_filter_rules_on_a_mixed_list() -> None:
    """测试覆盖过滤规则: duplicates, blank titles and empty items removed, valid ones kept in order."""
    items = [
        item("A", "u1", "2024-01-01"),
        item("A again", "u1", "2024-01-02"),
        item(" ", "u2", None),
        item("empty", "u3", None, snippet="", summary=""),
        item("B", "u4", None, summary="summary only"),
    ]
    assert [i.title for i in RuleBasedResultFilter().apply(items)] == ["A", "B"]


# --- 过滤器通过构造器注入到 DataAdapter --------------------------------------------------------
@pytest.mark.parametrize("cls", [MacroDataAdapter, CatalystDataAdapter])
def test_filter_is_a_constructor_parameter(cls: type) -> None:
    """过滤器通过构造器注入: both adapters take the filter in __init__ and never build one."""
    assert "result_filter" in inspect.signature(cls.__init__).parameters
    assert "RuleBasedResultFilter(" not in inspect.getsource(adapter_module)


class KeepNewestOnly(ISearchResultFilter):
    """Another filter (as an LLM scorer would be): keeps only the single newest dated item."""

    def apply(self, items: list[WebSearchItem]) -> list[WebSearchItem]:
        dated = [i for i in items if i.published_date]
        return sorted(dated, key=lambda i: i.published_date, reverse=True)[:1]  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("cls", [MacroDataAdapter, CatalystDataAdapter])
def test_filter_is_replaceable(cls: type, database: Database) -> None:
    """过滤器可被替换: another ISearchResultFilter changes the results with no adapter change."""
    answer = [item("old", "u1", "2024-01-01"), item("new", "u2", "2024-02-01"), item("", "u3", None)]
    provider = RecordingProvider(lambda _r: answer)
    rules = adapter(cls, database, provider).search(
        adapter(cls, database, provider).get_search_context("AAPL", AS_OF)
    )
    swapped_adapter = adapter(cls, database, provider, KeepNewestOnly())
    swapped = swapped_adapter.search(swapped_adapter.get_search_context("AAPL", AS_OF))
    assert [i.title for i in rules[0].items] == ["new", "old"]
    assert [i.title for i in swapped[0].items] == ["new"]


def test_container_binds_the_filter(settings, database: Database) -> None:
    """过滤器可被替换: the research container is the one place the filter is bound."""
    from stockdesk.entrypoints.container import AppContainer

    container = AppContainer(settings)
    research = container.research
    research.search_result_filter = KeepNewestOnly()  # rebinding in the container ...
    assert research.macro_data._filter is research.search_result_filter  # ... reaches both adapters
    assert research.catalyst_data._filter is research.search_result_filter


# --- 过滤后结果按时效排序 ---------------------------------------------------------------------
def sorted_titles(database: Database, answer: list[WebSearchItem]) -> list[str]:
    provider = RecordingProvider(lambda _r: answer)
    data = adapter(CatalystDataAdapter, database, provider)
    return [i.title for i in data.search(data.get_search_context("AAPL", AS_OF))[0].items]


def test_dated_results_newest_first(database: Database) -> None:
    """有日期的结果按时间降序排列: the mapped list puts later publications first."""
    answer = [
        item("jan", "u1", "2024-01-05"),
        item("feb", "u2", "2024-02-20"),
        item("feb-early", "u3", "2024-02-01"),
    ]
    assert sorted_titles(database, answer) == ["feb", "feb-early", "jan"]


def test_undated_results_last(database: Database) -> None:
    """无日期的结果排在末尾 / 测试覆盖排序逻辑: undated after every dated item, dated ones descending."""
    answer = [
        item("undated-1", "u0", None),
        item("jan", "u1", "2024-01-05"),
        item("undated-2", "u2", None),
        item("feb", "u3", "2024-02-20"),
    ]
    assert sorted_titles(database, answer) == ["feb", "jan", "undated-1", "undated-2"]


# --- 过滤统计日志 -----------------------------------------------------------------------------
def test_filter_counts_are_logged(database: Database, caplog: pytest.LogCaptureFixture) -> None:
    """过滤统计被记录: one INFO line per dimension with its name and the counts before and after."""
    answer = [item("a", "u1", "2024-01-01"), item("a", "u1", "2024-01-01"), item("", "u2", None)]
    provider = RecordingProvider(lambda _r: answer)
    data = adapter(MacroDataAdapter, database, provider)
    with caplog.at_level(logging.INFO, logger=adapter_module.__name__):
        data.search(data.get_search_context("AAPL", AS_OF))
    lines = [r for r in caplog.records if r.name == adapter_module.__name__ and r.levelno == logging.INFO]
    assert len(lines) == 4
    for record, config in zip(lines, MACRO_DIMENSIONS, strict=True):
        message = record.getMessage()
        assert config.name in message and "3 results before filtering, 1 after" in message
