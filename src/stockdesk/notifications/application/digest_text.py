"""A digest worded by code from the shared catalogue (`shared/i18n/*/notify.json`) in its language.

`DigestText` is the message as parts every channel lays out its own way (plain text, HTML, markdown,
Slack blocks, Telegram HTML): the heading, the change sentences, the table (its header and cells, and
each row as one sentence for the channels without tables), the "and N more" sentences and the link.
`fit` asks for fewer rows (then fewer changes) until a channel's measure of the message fits its
limit: whole rows are cut and counted in words, never a sentence cut in the middle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stockdesk.notifications.domain.digest import ChangeKind, Digest, DigestChange, DigestRow
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.wording import say


@dataclass(frozen=True)
class DigestText:
    heading: str
    changes_title: str
    changes: list[str]  # one sentence per change shown; the no-change sentence when there is none
    more_changes: str | None
    table_title: str
    columns: list[str]
    cells: list[list[str]]  # one list per row shown, in the order of `columns`
    row_lines: list[str]  # the same rows, one sentence each
    more_rows: str | None
    link: str | None  # the sentence with the URL
    link_text: str
    url: str | None

    def plain(self) -> str:
        """The whole message as plain text: changes first, then the rows, then the link."""
        parts = [self.heading, "", self.changes_title, *[f"- {c}" for c in self.changes]]
        parts += [self.more_changes] if self.more_changes else []
        parts += ["", self.table_title, *[f"- {r}" for r in self.row_lines]]
        parts += [self.more_rows] if self.more_rows else []
        parts += ["", self.link] if self.link else []
        return "\n".join(parts)


def _number(value: float | None, lang: str, decimals: int = 2) -> str:
    return say("notify.none", lang) if value is None else f"{value:,.{decimals}f}"


def _change_pct(value: float | None, lang: str) -> str:
    return say("notify.none", lang) if value is None else f"{value:+.2f}%"


def action_word(action: str, lang: str) -> str:
    """BUY/SELL/HOLD or a holder's ADD/TRIM/EXIT in words; an action the catalogue lacks as given."""
    try:
        return say(f"notify.action.{action.upper()}", lang)
    except KeyError:
        return action


def _who(symbol: str, name: str) -> str:
    return f"{symbol} {name}".strip()


def _probability(row: DigestRow, lang: str) -> str:
    if row.probability is None:
        return say("notify.uncalibrated", lang)
    return say("notify.probability", lang, percent=f"{row.probability:.0%}", n=row.sample_size or 0)


def change_sentence(change: DigestChange, lang: str) -> str:
    who = _who(change.symbol, change.name)
    if change.kind is ChangeKind.STOP_CROSSED:
        return say(
            "notify.change.stop_crossed", lang, who=who,
            price=_number(change.price, lang), level=_number(change.level, lang),
        )  # fmt: skip
    key = f"notify.change.{change.kind.value}"
    if change.before is None:  # not in the last run (or no last run)
        return say(f"{key}.first", lang, who=who, after=action_word(change.after, lang))
    before = action_word(change.before, lang)
    return say(key, lang, who=who, after=action_word(change.after, lang), before=before)


def row_cells(row: DigestRow, lang: str) -> list[str]:
    return [
        row.symbol, row.name, action_word(row.action, lang), _probability(row, lang),
        _number(row.close, lang), _change_pct(row.change_pct, lang),
        _number(row.stop, lang), _number(row.target, lang),
    ]  # fmt: skip


def row_sentence(row: DigestRow, lang: str) -> str:
    return say(
        "notify.row", lang, who=_who(row.symbol, row.name), action=action_word(row.action, lang),
        probability=_probability(row, lang), close=_number(row.close, lang),
        change=_change_pct(row.change_pct, lang), stop=_number(row.stop, lang),
        target=_number(row.target, lang),
    )  # fmt: skip


COLUMNS = ("symbol", "name", "action", "probability", "close", "change", "stop", "target")


def digest_text(digest: Digest, *, rows: int | None = None, changes: int | None = None) -> DigestText:
    """The digest in its language, with at most `rows` rows and `changes` changes (None: all)."""
    lang = digest.language
    shown_rows = digest.rows if rows is None else digest.rows[:rows]
    shown_changes = digest.changes if changes is None else digest.changes[:changes]
    hidden_rows = len(digest.rows) - len(shown_rows)
    hidden_changes = len(digest.changes) - len(shown_changes)
    sentences = [change_sentence(c, lang) for c in shown_changes]
    if not digest.changes:
        sentences = [say("notify.no_changes", lang)]
    url = digest.report_url
    return DigestText(
        heading=say("notify.heading", lang, title=digest.title, as_of=digest.as_of.isoformat()),
        changes_title=say("notify.changes", lang),
        changes=sentences,
        more_changes=say("notify.more_changes", lang, n=hidden_changes) if hidden_changes else None,
        table_title=say("notify.table", lang),
        columns=[say(f"notify.column.{c}", lang) for c in COLUMNS],
        cells=[row_cells(r, lang) for r in shown_rows],
        row_lines=[row_sentence(r, lang) for r in shown_rows],
        more_rows=say("notify.more_rows", lang, n=hidden_rows) if hidden_rows else None,
        link=say("notify.link", lang, url=url) if url else None,
        link_text=say("notify.link_text", lang),
        url=url,
    )


def _most(count: int, fits: Callable[[int], bool]) -> int | None:
    """The largest n in 0..count with fits(n), given that fits is true up to some n and false after
    (a message grows with the rows it shows): a binary search, so a long digest is measured about
    log2(count) times, not count times."""
    if not fits(0):
        return None
    low, high = 0, count
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


def fit(digest: Digest, size: Callable[[DigestText], int], limit: int | None) -> DigestText:
    """The fullest DigestText whose `size` (a channel's measure of its payload: characters or bytes)
    is at most `limit`: rows are dropped from the end first, then changes; a message that does not
    fit even with none of either is refused."""
    text = digest_text(digest)
    if limit is None or size(text) <= limit:
        return text
    rows = _most(len(digest.rows), lambda n: size(digest_text(digest, rows=n)) <= limit)
    if rows is not None:
        return digest_text(digest, rows=rows)
    changes = _most(len(digest.changes), lambda n: size(digest_text(digest, rows=0, changes=n)) <= limit)
    if changes is not None:
        return digest_text(digest, rows=0, changes=changes)
    raise BadRequestException(f"the digest's heading alone is longer than the channel's {limit}")
