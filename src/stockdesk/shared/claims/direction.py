"""direction_contradicts_sign: "营收增长" while revenue_yoy is -13.7; "表现良好" while growth is negative.

Only growth and change metrics have a sign to contradict (revenue and profit growth, the average
growth, the 5/20-day change, the gross margin trend). "业绩/表现良好" is read as a claim about
growth, and only when every growth figure given points the other way. A rate named as such
("增速下降") changes pace, not sign: there only 为负/转正 and praise count. A clause that hedges,
warns, looks ahead or names another period makes no claim about the newest value.

The newest period decides: "业绩增长" is read against revenue_yoy / profit_dedt_yoy when the input
gives them, not against growth_rate_avg (a multi-year average: +2.57 while the newest period fell
13.74% and 25.49% is no growth now). "盈利能力在增长/改善/提升" claims profit growth in the newest
period (profit_dedt_yoy); its level words ("盈利能力良好") and its fall are not read as a sign.
"""

from __future__ import annotations

import re

from stockdesk.shared.claims.facts import Facts
from stockdesk.shared.claims.grounding import is_grounded
from stockdesk.shared.claims.metrics import Mention, Metric, find_metrics, nearest_before
from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import negated
from stockdesk.shared.claims.violation import Violation
from stockdesk.shared.claims.words import HEDGE, NEGATIVE, PAST, PERIOD_LABEL, POSITIVE, PRAISE, SLOWING_AFTER

_RATE_NAME = re.compile(r"(?:增速|增长率|增幅|涨跌幅|涨幅|跌幅|growth)$", re.IGNORECASE)
_SIGN_WORD = re.compile(r"为负|转负|负增长|增长为负|同比为负|为正|转正|negative growth")
_NUMBER_AFTER = re.compile(
    r"\s*(?:了|约|达|为|至|到|幅度为|幅度达)?\s*([-+]?\d+(?:\.\d+)?)\s*(?:%|％|个百分点)?"
)
# "股价表现良好" is not about results: other subjects in the clause leave "表现" alone
_OTHER_SUBJECT = re.compile(
    r"股价|价格|走势|技术|市场|板块|行业|估值|现金|偿债|负债|流动|盈利能力|资产|成交|量能|均线|指标|"
    r"\b(?:price|stock|share|valuation|technical)\b",
    re.IGNORECASE,
)


LATEST_KEYS = ("revenue_yoy", "profit_dedt_yoy")  # the newest period's growth
AVERAGE_KEY = "growth_rate_avg"  # a multi-year average: never "the" growth of the newest period
PROFITABILITY = Metric(
    "盈利能力",
    r"盈利能力|盈利水平|获利能力|profitability",
    ("profit_dedt_yoy",),
    "growth",
    availability=False,
)
_PROFITABILITY = re.compile(PROFITABILITY.pattern, re.IGNORECASE)


def _mentions(clause: str) -> list[Mention]:
    """The metrics of the clause, with 盈利能力 (a level for metrics.py, a growth claim here)."""
    found = find_metrics(clause)
    found += [Mention(PROFITABILITY, m.start(), m.end()) for m in _PROFITABILITY.finditer(clause)]
    return sorted(found, key=lambda m: m.start)


def _words(clause: str) -> list[tuple[re.Match[str], int, bool]]:
    """(match, +1/-1, is praise) for every direction word, the longer one where two overlap."""
    found = [(m, -1, False) for m in NEGATIVE.finditer(clause)]
    found += [(m, 1, False) for m in POSITIVE.finditer(clause)]
    found += [(m, 1, True) for m in PRAISE.finditer(clause)]
    found.sort(key=lambda f: (f[0].start(), -(f[0].end() - f[0].start())))
    kept: list[tuple[re.Match[str], int, bool]] = []
    for item in found:
        if kept and item[0].start() < kept[-1][0].end():
            continue
        kept.append(item)
    return kept


def _other_period(clause: str, facts: Facts) -> bool:
    newest = (facts.newest_period or "").replace(" ", "")
    for label in PERIOD_LABEL.finditer(clause):
        if label.group(0).replace(" ", "").replace("年", "") != newest:
            return True
    return bool(PAST.search(clause))


def _claimed_sign(clause: str, word: re.Match[str], polarity: int, value: float) -> int | None:
    """The sign the words claim; "增长 -13.7%" claims a fall. A number that is not this value's
    (another period's, another base's) makes the claim one about something else: None."""
    after = _NUMBER_AFTER.match(clause, word.end())
    if not after:
        return polarity
    number = float(after.group(1))
    if number == 0 or not is_grounded(after.group(1).lstrip("+-"), [abs(value)]):
        return None
    return polarity * (1 if number > 0 else -1)


def _results_sign(facts: Facts, keys: tuple[str, ...]) -> tuple[str, int] | None:
    """Every growth figure of the newest period (any figure when none is the newest period's), when
    all point one way (at least one)."""
    keys = tuple(k for k in keys if k in LATEST_KEYS and facts.numbers.get(k)) or keys
    signs = [found for key in keys if (found := facts.sign((key,)))]
    if not signs or len({s for _, _, s in signs}) != 1:
        return None
    return "，".join(f"{k}={v:g}" for k, v, _ in signs), signs[0][2]


def _actual(mention: Mention, clause: str, facts: Facts, praise: bool) -> tuple[str, int] | None:
    metric = mention.metric
    if metric.kind == "results":
        if _OTHER_SUBJECT.search(clause):
            return None
        return _results_sign(facts, metric.keys)
    if metric.kind == "growth":
        found = facts.sign(metric.keys)
        return (f"{found[0]}={found[1]:g}", found[2]) if found else None
    if metric.kind == "margin" and metric.trend_key and not praise:
        trend = facts.trend(metric.trend_key)
        return (f"{metric.trend_key}={trend[0]}", trend[1]) if trend else None
    return None


def _average_note(mention: Mention, facts: Facts, claimed: int) -> str:
    """Why the average that agrees with the claim does not count, when there is one."""
    average = facts.sign((AVERAGE_KEY,))
    if mention.metric.keys[0] == AVERAGE_KEY or average is None or average[2] != claimed:
        return ""  # the claim is about the average itself, or there is no such average
    return f"{AVERAGE_KEY}={average[1]:g} 是多年增速均值，不是最新一期：说“增长”要看最新一期。"


def direction_contradicts_sign(claim: Claim, facts: Facts) -> list[Violation]:
    clause = claim.clause
    if HEDGE.search(clause) or _other_period(clause, facts):
        return []
    mentions = _mentions(clause)
    found: list[Violation] = []
    for word, polarity, praise in _words(clause):
        if any(m.start <= word.start() < m.end for m in mentions) or negated(clause[: word.start()]):
            continue
        if SLOWING_AFTER.match(clause, word.end()):
            continue
        mention = nearest_before(mentions, word.start(), {"growth", "results", "margin"})
        if mention is None or (mention.metric is PROFITABILITY and (praise or polarity < 0)):
            continue
        is_rate = bool(_RATE_NAME.search(clause[mention.start : mention.end]))
        if is_rate and not (praise or _SIGN_WORD.fullmatch(word.group(0))):
            continue
        actual = _actual(mention, clause, facts, praise)
        if actual is None:
            continue
        value = facts.number(mention.metric.keys)
        claimed = polarity
        if mention.metric.kind == "growth" and value is not None:
            claimed = _claimed_sign(clause, word, polarity, value[1])
        if claimed is None or claimed == actual[1]:
            continue
        direction = "上升/为正" if claimed > 0 else "下降/为负"
        note = _average_note(mention, facts, claimed)
        detail = (
            f"「{claim.sentence}」用“{word.group(0)}”说 {mention.metric.name} {direction}，"
            f"但输入中 {actual[0]}，方向相反：方向词必须与数值的正负一致。{note}"
        )
        found.append(claim.violation("direction_contradicts_sign", detail, mention.metric.name))
    return found
