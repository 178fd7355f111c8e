"""Reflection, measured: lessons known by the point's date only, worded by code, and
`evaluate --reflection` comparing with and without lessons on the same points."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date

import numpy as np
import pandas as pd
import pytest

from stockdesk.coordinator.application import Lesson
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.application.lessons import known_lessons
from stockdesk.evaluation.application.scoring import benchmark_levels, outcomes
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.domain.ports import SecurityInfo
from stockdesk.judge.application.services.lessons import HEADER, lesson_line, lessons_block
from stockdesk.judge.domain.dtos.evidence import LessonInput
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.coordinator.support import ANSWERS
from tests.evaluation.market import market_frames, populate, symbols

NAMES = symbols(2)


# ---- lessons: point in time ------------------------------------------------------------------
def _panel() -> tuple[pd.DataFrame, dict[str, SecurityInfo], pd.DataFrame]:
    bars = market_frames(NAMES, start=date(2022, 1, 3), end=date(2022, 12, 30))["bars"]
    securities = {s: SecurityInfo(symbol=s, name=None, market="CN") for s in NAMES}
    return bars, securities, benchmark_levels(bars, NAMES, None)


def _past() -> pd.DataFrame:
    days = [date(2022, 2, 1), date(2022, 3, 1), date(2022, 4, 1), date(2022, 5, 2), date(2022, 6, 1)]
    return pd.DataFrame(
        {
            "symbol": NAMES[0],
            "as_of": days,
            "action": ["BUY", "SELL", "HOLD", "BUY", "BUY"],
            "probability_up": [0.6, 0.4, None, 0.55, 0.7],
        }
    )


def test_a_lesson_is_a_past_verdict_whose_outcome_the_bars_held_by_the_date() -> None:
    bars, securities, levels = _panel()
    as_of = date(2022, 5, 20)
    found = known_lessons(_past(), bars, securities, levels, NAMES[0], as_of)
    # 2022-05-02 + 20 trading days is after 05-20 (not known yet); 06-01 lies after the date
    assert [lesson.as_of for lesson in found] == [date(2022, 4, 1), date(2022, 3, 1), date(2022, 2, 1)]
    full = outcomes(_past(), bars, securities, levels, [20]).set_index("as_of")
    for lesson in found:  # the outcome is evaluate's own, and its exit lies on or before the date
        assert lesson.excess_return == pytest.approx(full.loc[lesson.as_of, "exc_20"], abs=1e-6)
        assert pd.Timestamp(full.loc[lesson.as_of, "exit_20"]) <= pd.Timestamp(as_of)
    assert found[1].probability_up == 0.4 and found[0].probability_up is None
    assert known_lessons(_past(), bars, securities, levels, NAMES[1], as_of) == []  # another symbol
    assert len(known_lessons(_past(), bars, securities, levels, NAMES[0], as_of, limit=2)) == 2


def test_perturbing_every_price_after_the_date_leaves_its_lessons_byte_identical() -> None:
    bars, securities, _ = _panel()
    as_of = date(2022, 5, 20)
    spoiled = bars.copy()
    later = pd.to_datetime(spoiled["trade_date"]) > pd.Timestamp(as_of)
    rng = np.random.default_rng(3)
    for column in ("open", "high", "low", "close", "pre_close"):
        spoiled.loc[later, column] = spoiled.loc[later, column] * rng.uniform(0.5, 1.5, int(later.sum()))
    before = known_lessons(_past(), bars, securities, benchmark_levels(bars, NAMES, None), NAMES[0], as_of)
    after = known_lessons(
        _past(), spoiled, securities, benchmark_levels(spoiled, NAMES, None), NAMES[0], as_of
    )
    assert before and json.dumps([x.model_dump(mode="json") for x in before]) == json.dumps(
        [x.model_dump(mode="json") for x in after]
    )


# ---- lessons: worded by code ----------------------------------------------------------------
def test_a_lesson_says_what_was_said_and_what_followed() -> None:
    right = LessonInput(
        as_of="2024-03-01", action="BUY", probability_up=0.58, horizon=20, excess_return=0.032
    )
    wrong = LessonInput(as_of="2024-04-01", action="SELL", horizon=20, excess_return=0.01)
    hold = LessonInput(as_of="2024-05-06", action="HOLD", probability_up=0.5, horizon=20, excess_return=-0.02)
    said = "2024-03-01 裁决 BUY（上涨概率 0.58）：其后 20 个交易日超额收益 +3.20%，方向正确"
    assert lesson_line(right) == said
    assert lesson_line(wrong).endswith("超额收益 +1.00%，方向错误") and "（未校准）" in lesson_line(wrong)
    assert lesson_line(hold).endswith("超额收益 -2.00%")  # HOLD states no direction
    assert lessons_block([]) == ""  # without lessons the judge's prompt is unchanged
    block = lessons_block([right, wrong])
    assert block.startswith("\n\n" + HEADER) and block.count("\n- ") == 2


# ---- evaluate --reflection ------------------------------------------------------------------
class ReflectingRouter:
    """Scripted answers; the technical expert leans bullish, so BUY stays within the evidence. The
    judge answers HOLD, or BUY when its prompt carries lessons: reflection changes its action."""

    def __init__(self) -> None:
        self.judge_prompts: list[str] = []

    def __call__(self, request: CompletionRequest) -> str:
        name = request.schema_name
        answer = dict(ANSWERS[name])
        if name == "TechnicalAnalysisOutput":
            answer["signal"] = "BULLISH"
        if name == "VerdictResult":
            prompt = request.messages[-1].content
            self.judge_prompts.append(prompt)
            if HEADER in prompt:
                answer["action"] = "BUY"
        return json.dumps(answer, ensure_ascii=False)


@pytest.fixture
def app(settings: Settings) -> Iterator[tuple[AppContainer, ScriptedProvider, ReflectingRouter]]:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    router = ReflectingRouter()
    provider = ScriptedProvider([router])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    yield container, provider, router
    container.close()


def config(**changes: object) -> EvaluationConfig:
    base = dict(
        symbols=NAMES, start=date(2023, 3, 1), end=date(2023, 6, 30), every=20, horizons=[5, 20],
        mode="full", experts=["valuation_modeler", "technical_analyst", "financial_auditor"],
        bootstrap_resamples=200,
    )  # fmt: skip
    return EvaluationConfig.model_validate({**base, **changes})


def test_reflection_runs_each_point_without_and_with_lessons_and_compares_them(
    app: tuple[AppContainer, ScriptedProvider, ReflectingRouter],
) -> None:
    container, provider, router = app
    service = container.evaluation.service
    plain = service.run(config())  # the arm without lessons, as any full run
    calls = provider.calls
    report = service.run(config(reflection=True))
    block = report.reflection
    assert block is not None and block["points"] == len(report.points) == len(plain.points)
    with_lessons = 0
    for point, before in zip(report.points, plain.points, strict=True):
        session = container.coordinator.service.get(point.session_id)
        lessons = [Lesson.model_validate(x) for x in session.verdict["lessons"]]
        assert all(lesson.as_of < point.as_of for lesson in lessons)
        assert before.action == "HOLD" and point.action == ("BUY" if lessons else "HOLD")
        with_lessons += bool(lessons)
    assert 0 < with_lessons < len(report.points)  # the first dates have no matured past verdict
    assert block["lessons_given"] == block["actions_changed"] == with_lessons
    # the arm without lessons was reused, and only the judges that saw lessons asked the model
    assert provider.calls - calls == with_lessons
    assert sum(HEADER in p for p in router.judge_prompts) == with_lessons
    decided = block["horizons"]["20"]["action_excess"]
    assert decided["resamples"] > 0 and block["helps"] == (decided["low"] is not None and decided["low"] > 0)
    assert ("helps on these points" in block["summary"]) == block["helps"]
    assert block["summary"] in report.summary


def test_a_reflection_run_alone_first_finishes_the_run_without_lessons(
    app: tuple[AppContainer, ScriptedProvider, ReflectingRouter],
) -> None:
    container, _, _ = app
    service = container.evaluation.service
    report = service.run(config(symbols=NAMES[:1], horizons=[20], reflection=True))  # nothing before
    base = service.start(config(symbols=NAMES[:1], horizons=[20]))
    assert base.pending == 0 and base.done == len(report.points)  # the arm without lessons, finished
    assert report.reflection is not None and report.reflection["points"] == len(report.points)


def test_reflection_needs_the_llm_judge_of_the_full_mode() -> None:
    with pytest.raises(ValueError, match="only the full mode"):
        config(mode="experts", reflection=True)
    # a run without reflection keeps the job it had before the option existed
    assert "reflection" not in config().stored() and config(reflection=True).stored()["reflection"] is True


def test_the_reflection_sentence_is_worded_in_each_language_from_its_stored_figures() -> None:
    """Issue 32, item 4: the summary's reflection paragraph in both languages, the same figures."""
    from stockdesk.evaluation.application.reflection import reflection_sentence

    stored = {
        "points": 12, "actions_changed": 3, "lessons_given": 9, "horizon": 20, "helps": False,
        "horizons": {"20": {"action_excess": {"observed": 0.004, "low": -0.002, "high": 0.01}}},
    }  # fmt: skip
    en, zh = reflection_sentence(stored, "en"), reflection_sentence(stored, "zh")
    assert en.startswith("Reflection: 9 of 12 points had lessons; 3 verdicts changed their action.")
    assert "+0.40%" in en and "[-0.20%, +1.00%]" in en and "no measurable help" in en
    assert "反思" in zh and "+0.40%" in zh and "[-0.20%, +1.00%]" in zh and "没有可测的帮助" in zh
    assert not any(c.isascii() and c.isalpha() for c in zh)
