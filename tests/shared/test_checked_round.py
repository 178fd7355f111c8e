"""shared.claims.checked_round: the one round (ask, check, one re-ask, keep, drop the rest), in choices
mode (refused picks) and prose mode (claim violations)."""

from __future__ import annotations

from stockdesk.shared.claims import check_claims, checked_round, listed, repair_feedback
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
    done = checked_round(ask, wrong, listed("重选："), unparsed=PARSE)
    assert asked == [None] and done.final == {"cards": ["ok1"]} and done.record() == {
        "first_wrong": [], "retried": False, "dropped": []
    }  # fmt: skip


def test_a_wrong_pick_is_reasked_with_the_reasons_then_what_is_still_wrong_is_left_to_drop() -> None:
    ask, asked = asker({"cards": ["bad1", "ok1"]}, {"cards": ["bad2"]})
    done = checked_round(ask, wrong, listed("重选："), unparsed=PARSE)
    assert asked == [None, "重选：\n- cards:bad1：方向不符"]
    assert done.final == {"cards": ["bad2"]} and done.still == ["cards:bad2：方向不符"] and done.retried
    assert len(done.answers) == 2


def test_a_retry_the_caller_does_not_accept_or_that_does_not_parse_keeps_the_first() -> None:
    first = {"cards": ["bad1"], "action": "BUY"}
    ask, _ = asker(first, {"cards": [], "action": "SELL"})
    done = checked_round(
        ask, wrong, listed("重选："), unparsed=PARSE, accept=lambda a, b: a["action"] == b["action"]
    )  # type: ignore[index]
    assert done.final is first and done.still == ["cards:bad1：方向不符"] and len(done.answers) == 2
    ask, _ = asker(first, LLMOutputParseError("not JSON"))
    done = checked_round(ask, wrong, listed("重选："), unparsed=PARSE)
    assert done.final is first and done.still == done.first_wrong and done.retried


def test_reask_decides_which_problems_are_worth_a_second_call() -> None:
    ask, asked = asker({"cards": ["bad1"]})
    done = checked_round(ask, wrong, listed("重选："), unparsed=PARSE, reask=lambda problems: False)
    assert asked == [None] and not done.retried and done.still == ["cards:bad1：方向不符"]


def test_prose_mode_reasks_with_the_claim_feedback_and_leaves_the_violations_still_there() -> None:
    facts = {"pe_ttm": 12.5}

    def violations(answer: object) -> list:
        return check_claims({"summary": answer}, facts)  # type: ignore[dict-item]

    ask, asked = asker("市盈率为 99.9 倍。", "市盈率为 88.8 倍。")
    done = checked_round(ask, violations, repair_feedback, unparsed=PARSE)
    assert asked[0] is None and "99.9" in str(asked[1]) and done.retried
    assert done.final == "市盈率为 88.8 倍。" and [v.term for v in done.still] == ["88.8"]
    assert [v.kind for v in done.first_wrong] == ["ungrounded_number"]
    ask, asked = asker("市盈率为 12.5 倍。")
    done = checked_round(ask, violations, repair_feedback, unparsed=PARSE)
    assert asked == [None] and done.still == [] and not done.retried
