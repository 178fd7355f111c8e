"""The small digest `notify test` sends: one change and two rows, worded like a real run's."""

from __future__ import annotations

from datetime import date

from stockdesk.notifications.domain.digest import ChangeKind, Digest, DigestChange, DigestRow
from stockdesk.shared.wording import say


def sample_digest(lang: str, today: date, report_url: str | None = None) -> Digest:
    name = say("notify.sample.name", lang)
    return Digest(
        title=say("notify.sample.title", lang),
        as_of=today,
        run="notify-test",
        language="zh" if lang == "zh" else "en",
        changes=[
            DigestChange(kind=ChangeKind.NEW_BUY, symbol="600519", name=name, before="HOLD", after="BUY")
        ],
        rows=[
            DigestRow(
                symbol="600519", name=name, action="BUY", probability=0.62, sample_size=140,
                close=1523.5, change_pct=1.25, stop=1450.0, target=1680.0,
            ),
            DigestRow(symbol="AAPL", name=name, action="HOLD", close=189.3, change_pct=-0.4),
        ],
        report_url=report_url,
    )  # fmt: skip
