"""The briefing pages over HTTP: start from the form (the REST route's launch function), follow the job
live, read the script by chapters, the audio when asked for (served only for its own job), and errors.

A real app and SQLite store with the briefing tests' tickers (XMPL, YMPL, ZMPL to 2024-03-01), the
real panel and briefing service over a scripted model; jobs run on the app's executor.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from stockdesk.briefing.domain.dtos import BriefingScript
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.pages.briefings_view import chapters
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.briefing.briefing_support import BriefingModel, llm_over, seed_briefing_store
from tests.entrypoints.web.lab_support import slot_taken

FORM = {"date": "2024-03-01", "tickers": "zmpl, XMPL", "max_rounds": ""}
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def container(settings: Settings, tmp_path: Path) -> Iterator[AppContainer]:
    built = AppContainer(settings, llm_service=llm_over(BriefingModel()))
    seed_briefing_store(built.database, tmp_path)
    yield built
    built.close()


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def start(client: TestClient, **changes: str) -> str:
    answer = client.post("/briefings", data={**FORM, **changes}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    assert re.fullmatch(r"/briefings/[0-9a-f]{32}", answer.headers["location"])
    return answer.headers["location"].rsplit("/", 1)[1]


def settled(container: AppContainer, job_id: str) -> None:
    """Wait until the executor has let go of the job (script and audio are made on its thread)."""
    deadline = time.monotonic() + 120.0
    while container.jobs.is_active(job_id) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_briefing_started_from_the_form_is_read_by_chapters_with_speakers(
    client: TestClient, container: AppContainer
) -> None:
    form = client.get("/briefings")
    assert form.status_code == 200
    for label in ('for="br-date"', 'for="br-tickers"', 'for="br-rounds"', 'for="br-audio"'):
        assert label in form.text
    job_id = start(client)
    settled(container, job_id)
    page = client.get(f"/briefings/{job_id}")
    assert page.status_code == 200 and 'data-state="completed"' in page.text
    assert "sse-connect" not in page.text and 'id="briefing-audio"' not in page.text
    assert re.findall(
        r'<article class="chapter card" id="chapter-\d+" data-chapter="([^"]+)">', page.text
    ) == [
        "ticker:ZMPL",
        "ticker:XMPL",
    ]
    assert (
        '<h3><span translate="no">ZMPL</span></h3>' in page.text
        and "Now to ZMPL. What did the panel say?" in page.text
    )
    assert page.text.count('data-speaker="host"') == 4 and page.text.count('data-speaker="analyst"') == 4
    assert '<strong class="speaker">Host:</strong>' in page.text
    assert re.search(r'data-step="99:refine" data-status="done"', page.text)
    listed = client.get("/briefings")
    assert f'<tr data-job="{job_id}">' in listed.text and "ZMPL, XMPL" in listed.text
    # the REST route starts the same job: one way to start a briefing
    again = client.post("/api/v1/briefings", json={"date": "2024-03-01", "tickers": ["ZMPL", "XMPL"]})
    assert again.status_code == 202 and again.json()["job_id"] == job_id


def test_a_briefing_with_audio_plays_its_own_wav_only(client: TestClient, container: AppContainer) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (make espeak)")
    job_id = start(client, audio="on")
    settled(container, job_id)
    page = client.get(f"/briefings/{job_id}")
    assert f'<audio controls preload="metadata" src="/briefings/{job_id}/audio">' in page.text
    audio = client.get(f"/briefings/{job_id}/audio")
    assert audio.status_code == 200 and audio.headers["content-type"] == "audio/wav"
    assert audio.content[:4] == b"RIFF" and len(audio.content) > 10_000

    other = start(client, tickers="YMPL")  # no audio asked for
    settled(container, other)
    assert client.get(f"/briefings/{other}/audio").status_code == 404
    assert 'id="briefing-audio"' not in client.get(f"/briefings/{other}").text
    for bad in ("nope", "..%2F..%2Fstockdesk.db", job_id.upper()):
        assert client.get(f"/briefings/{bad}/audio").status_code == 404


def test_a_queued_briefing_is_live_and_can_be_cancelled(client: TestClient, container: AppContainer) -> None:
    with slot_taken(container.jobs, "briefing"):
        job_id = start(client)
        page = client.get(f"/briefings/{job_id}")
        assert f'sse-connect="/briefings/{job_id}/events"' in page.text and 'data-state="queued"' in page.text
        cancelled = client.post(f"/briefings/{job_id}/cancel", headers={"HX-Request": "true"})
        assert cancelled.status_code == 200 and 'data-state="cancelling"' in cancelled.text
    settled(container, job_id)
    stopped = client.get(f"/briefings/{job_id}")
    assert "sse-connect" not in stopped.text and 'id="script"' not in stopped.text


def test_the_progress_stream_ends_with_done_once_the_briefing_is_written(
    client: TestClient, container: AppContainer
) -> None:
    with slot_taken(container.jobs, "briefing") as release:
        job_id = start(client)
        first = threading.Event()
        text: list[str] = [""]

        def read() -> None:
            with client.stream("GET", f"/briefings/{job_id}/events") as response:
                for chunk in response.iter_text():
                    text[0] += chunk
                    first.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert first.wait(30)
        release.set()
        reader.join(120)
    assert text[0].startswith("event: progress\n") and 'data-state="queued"' in text[0].split("\n\n")[0]
    assert 'data-state="completed"' in text[0] and text[0].endswith("event: done\ndata: finished\n\n")


@pytest.mark.parametrize(
    ("changes", "status", "code"),
    [
        ({"date": ""}, 400, "INVALID_DATE"),
        ({"date": "2024-02-30"}, 400, "INVALID_DATE"),
        ({"tickers": " "}, 400, "INVALID_TICKERS"),
        ({"tickers": "XMPL, NOPE"}, 404, "UNKNOWN_TICKER"),
        ({"max_rounds": "many"}, 400, "INVALID_MAX_ROUNDS"),
    ],
    ids=["no-date", "bad-date", "no-tickers", "unknown-ticker", "bad-rounds"],
)
def test_a_refused_form_comes_back_with_the_reason_and_starts_nothing(
    client: TestClient, container: AppContainer, changes: dict[str, str], status: int, code: str
) -> None:
    answer = client.post("/briefings", data={**FORM, **changes}, follow_redirects=False)
    assert answer.status_code == status and f'data-code="{code}"' in answer.text
    assert container.jobs.active() == []
    assert container.briefing.jobs is not None and container.briefing.jobs.recent() == []


def test_unknown_briefings_are_404_pages_and_the_pages_speak_chinese(client: TestClient) -> None:
    for path in ("/briefings/0123456789abcdef0123456789abcdef", "/briefings/nope/events"):
        answer = client.get(path)
        assert answer.status_code == 404 and 'data-code="BRIEFING_NOT_FOUND"' in answer.text
    assert client.post("/briefings/nope/cancel").status_code == 404
    page = client.get("/briefings", headers=ZH)
    assert "播报稿" in page.text and "同时生成语音" in page.text


def test_chapters_hold_their_turns_with_sources_and_no_turn_is_lost() -> None:
    script = BriefingScript.model_validate(
        {
            "date": "20240301",
            "user_tickers": ["XMPL"],
            "chapter": [{"name": "opening", "start_id": 0, "end_id": 0},
                        {"name": "ticker:XMPL", "start_id": 1, "end_id": 2}],
            "scripts": [
                {"id": 0, "speaker": "host", "text": "Welcome."},
                {"id": 1, "speaker": "analyst", "text": "XMPL rose.", "sources": [
                    {"type": "article", "pk": "n1", "title": "XMPL widens its margin"},
                    {"type": "sec_filing", "ticker": "XMPL", "form": "10-K", "filed_date": "2024-02-01",
                     "accession_number": "0000000000-24-000001"}]},
                {"id": 2, "speaker": "host", "text": "Thanks."},
                {"id": 3, "speaker": "guest", "text": "A turn no chapter names."},
            ],
        }
    )  # fmt: skip
    views = chapters(script)
    assert [(c.name, c.ticker, c.base) for c in views] == [
        ("opening", None, True),
        ("ticker:XMPL", "XMPL", False),
        ("", None, False),
    ]
    assert [t.id for c in views for t in c.turns] == [0, 1, 2, 3]
    assert [(s.kind, s.text) for s in views[1].turns[0].sources] == [
        ("article", "XMPL widens its margin"),
        ("sec_filing", "XMPL 10-K 2024-02-01 (0000000000-24-000001)"),
    ]
