"""shared.claims.pick_round: the one choices round (ask, check, one re-ask, keep, drop the rest)."""

from __future__ import annotations

from stockdesk.shared.claims import pick_round
from stockdesk.shared.errors import LLMOutputParseError

PARSE = (LLMOutputParseError,)


def asker(*answers: object):
    asked: list[str | None] = []

    def ask(feedback: str | None) -> object:
        asked.append(feedback)
        answer = answers[len(asked) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return ask, asked


def wrong(answer: object) -> list[str]:
    return [f"cards:{c}：方向不符" for c in answer["cards"] if c.startswith("bad")]  # type: ignore[index]


def test_a_clean_answer_is_asked_once() -> None:
    ask, asked = asker({"cards": ["ok1"]})
    done = pick_round(ask, wrong, "重选：", unparsed=PARSE)
    assert asked == [None] and done.final == {"cards": ["ok1"]} and done.record() == {
        "first_wrong": [], "retried": False, "dropped": []
    }  # fmt: skip


def test_a_wrong_pick_is_reasked_with_the_reasons_then_what_is_still_wrong_is_left_to_drop() -> None:
    ask, asked = asker({"cards": ["bad1", "ok1"]}, {"cards": ["bad2"]})
    done = pick_round(ask, wrong, "重选：", unparsed=PARSE)
    assert asked == [None, "重选：\n- cards:bad1：方向不符"]
    assert done.final == {"cards": ["bad2"]} and done.still == ["cards:bad2：方向不符"] and done.retried
    assert len(done.answers) == 2


def test_a_retry_the_caller_does_not_accept_or_that_does_not_parse_keeps_the_first() -> None:
    first = {"cards": ["bad1"], "action": "BUY"}
    ask, _ = asker(first, {"cards": [], "action": "SELL"})
    done = pick_round(ask, wrong, "重选：", unparsed=PARSE, accept=lambda a, b: a["action"] == b["action"])  # type: ignore[index]
    assert done.final is first and done.still == ["cards:bad1：方向不符"] and len(done.answers) == 2
    ask, _ = asker(first, LLMOutputParseError("not JSON"))
    done = pick_round(ask, wrong, "重选：", unparsed=PARSE)
    assert done.final is first and done.still == done.first_wrong and done.retried


def test_reask_decides_which_problems_are_worth_a_second_call() -> None:
    ask, asked = asker({"cards": ["bad1"]})
    done = pick_round(ask, wrong, "重选：", unparsed=PARSE, reask=lambda problems: False)
    assert asked == [None] and not done.retried and done.still == ["cards:bad1：方向不符"]
