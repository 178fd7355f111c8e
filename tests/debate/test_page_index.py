"""Filing page summaries read the whole page (spec 5.5): a page longer than the model's input is split
into parts (map), the part summaries combined in one more call (reduce); fallbacks are never cached;
the JSON cache is read back, and an index of the old first-6,000-characters version is rebuilt.
The model is the scripted provider, telling the page, part and combine prompts apart by system prompt."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.debate.infrastructure.tools import page_index
from stockdesk.debate.infrastructure.tools.page_index import (
    SUMMARY_MAX_CHARS,
    SUMMARY_VERSION,
    FilingPageIndex,
    SummaryPrompts,
    index_path,
)
from stockdesk.debate.infrastructure.tools.page_parts import CJK_STOPS, split_page
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from tests.conftest import scripted_service

FILING = {
    "ticker": "XMPL",
    "accession_number": "0000054321-24-000012",
    "form": "10-Q",
    "filed_date": "2024-02-02",
}
MARKER = "NEEDLE-7781"
PROMPTS = SummaryPrompts.load(page_index.__package__ or "")
KINDS = {PROMPTS.page.system: "page", PROMPTS.part.system: "part", PROMPTS.combine.system: "combine"}


LIMIT = 6_000  # the part size these tests count calls with (the setting's default is larger)


def long_page(length: int = 20_000) -> str:
    """Filing-like prose in paragraphs, exactly `length` characters, MARKER in its last 60."""
    sentences = [f"Item {i}. Segment {i} revenue rose {i % 17}% on widget demand." for i in range(900)]
    body = "\n\n".join(" ".join(sentences[i : i + 7]) for i in range(0, len(sentences), 7))
    tail = f" Final note: {MARKER} closes the page."
    page = body[: length - len(tail)] + tail
    assert len(page) == length and page.index(MARKER) > length - 60
    return page


class SummaryModel:
    """Answers by prompt kind: a part with `P{n}` (n counts part calls), the page prompts with fixed
    text; `fail(kind, user)` True answers with prose the repair cannot fix, so the call fails."""

    def __init__(self, fail: Callable[[str, str], bool] = lambda kind, user: False, part_text: str = ""):
        self.fail = fail
        self.part_text = part_text
        self.calls: Counter[str] = Counter()  # first attempts only, not the service's repair calls
        self.prompts: list[tuple[str, str]] = []

    def __call__(self, request: CompletionRequest) -> str:
        kind = KINDS[request.messages[0].content]
        user = request.messages[1].content  # the original prompt; a repair appends two messages
        if len(request.messages) == 2:
            self.calls[kind] += 1
            self.prompts.append((kind, user))
        if self.fail(kind, user):
            return "sorry, no JSON here"
        summary = {
            "page": "short page summary",
            "part": f"P{self.calls['part']}{self.part_text}",
            "combine": "whole page summary",
        }[kind]
        return json.dumps({"summary": summary})

    def texts(self, kind: str) -> list[str]:
        """The page text each `kind` prompt carried (templates end with a blank line, then the text)."""
        return [user.split("\n\n", 1)[1] for k, user in self.prompts if k == kind]


def page_index_over(model: SummaryModel, cache_dir: Path) -> FilingPageIndex:
    return FilingPageIndex(
        LLMHandle(scripted_service(ScriptedProvider([model])), SAMPLING), cache_dir, summary_input_chars=LIMIT
    )


def cache_file(cache_dir: Path) -> Path:
    return index_path(cache_dir, FILING["ticker"], FILING["accession_number"])


# ---- the splitter --------------------------------------------------------------------------------
texts = st.text(alphabet=st.sampled_from([*"ab Z9.,!?\n\t。；", " ", "\n"]), max_size=400)
words = st.text(alphabet=st.sampled_from(list("abcXYZ09.,$%。")), min_size=1, max_size=12)  # + "." <= 13
separators = st.sampled_from([" ", "  ", "\n", "\n\n", ". ", "\t"])


@given(texts, st.integers(min_value=1, max_value=80))
def test_parts_are_consecutive_slices_within_the_limit(text: str, limit: int) -> None:
    parts = split_page(text, limit)
    assert "".join(parts) == text
    assert all(len(p) <= limit for p in parts)
    assert all(parts) or parts == [""]
    assert (len(parts) == 1) == (len(text) <= limit)


@given(st.lists(st.tuples(words, separators), min_size=1, max_size=60), st.integers(13, 90))
def test_no_word_is_cut_when_every_word_fits(pieces: list[tuple[str, str]], limit: int) -> None:
    text = "".join(word + sep for word, sep in pieces)
    parts = split_page(text, limit)
    assert "".join(parts) == text and all(len(p) <= limit for p in parts)
    cut = 0
    for part in parts[:-1]:
        cut += len(part)
        before, after = text[cut - 1], text[cut]
        assert before.isspace() or after.isspace() or before in CJK_STOPS, (text, parts)


def test_cuts_prefer_a_paragraph_then_a_sentence_then_a_space_and_cut_hard_only_without_spaces() -> None:
    paragraph = "First point made here. More text\n\nSecond paragraph. Words go on and on"
    assert split_page(paragraph, 60)[0] == "First point made here. More text\n\n"
    sentence = "First point made here. More text and words here that go on"
    assert split_page(sentence, 40)[0] == "First point made here. "
    spaces = "alpha beta gamma delta epsilon zeta eta theta"
    assert split_page(spaces, 20)[0] == "alpha beta gamma "
    assert split_page("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert split_page("revenue of $1.2 billion rose", 18)[0] == "revenue of $1.2 "  # "$1." ends no sentence


# ---- map and reduce ------------------------------------------------------------------------------
def test_a_long_page_is_read_to_its_end_in_parts_then_combined_once(tmp_path: Path) -> None:
    model = SummaryModel()
    page, short = long_page(), "A short last page about cash."
    entries, cached = page_index_over(model, tmp_path).index(FILING, [page, short])

    parts = split_page(page, LIMIT)
    assert len(parts) == 4  # 20,000 characters in parts of at most 6,000
    assert model.calls == Counter(part=4, combine=1, page=1)
    assert "".join(model.texts("part")) == page  # every character sent once, in order
    assert all(len(t) <= LIMIT for t in model.texts("part"))
    assert MARKER in model.texts("part")[-1]  # the end of the page reached the model
    assert "第 4/4 段" in model.prompts[3][1] and "第 1/2 页" in model.prompts[3][1]
    combine_prompt = next(user for kind, user in model.prompts if kind == "combine")
    assert all(f"P{n}" in combine_prompt for n in (1, 2, 3, 4))
    assert model.texts("page") == [short]
    assert entries == [
        {"page": "1", "page_summary": "whole page summary"},
        {"page": "2", "page_summary": "short page summary"},
    ]
    assert cached is False
    stored = json.loads(cache_file(tmp_path).read_text("utf-8"))
    assert stored["summary_version"] == SUMMARY_VERSION and stored["index"] == entries
    assert {k: stored[k] for k in FILING} == FILING and stored["total_pages"] == 2


def test_a_page_within_the_limit_takes_one_call(tmp_path: Path) -> None:
    model = SummaryModel()
    page = long_page(LIMIT)
    entries, _ = page_index_over(model, tmp_path).index(FILING, [page])
    assert model.calls == Counter(page=1)
    assert model.texts("page") == [page]
    assert entries == [{"page": "1", "page_summary": "short page summary"}]


# ---- fallbacks and the cache ---------------------------------------------------------------------
def test_a_part_that_fails_gives_an_excerpt_and_the_index_is_not_cached(tmp_path: Path) -> None:
    model = SummaryModel(fail=lambda kind, user: kind == "part" and MARKER in user)
    index = page_index_over(model, tmp_path)
    entries, cached = index.index(FILING, [long_page()])
    assert entries == [{"page": "1", "page_summary": "whole page summary"}] and cached is False
    combine_prompt = model.prompts[-1][1]
    last_part = model.texts("part")[-1]
    assert "P1" in combine_prompt and "P3" in combine_prompt and "P4" not in combine_prompt
    assert " ".join(last_part.split())[:100] in combine_prompt  # the failed part's excerpt stands in
    assert not cache_file(tmp_path).exists()

    model.fail = lambda kind, user: False
    assert index.index(FILING, [long_page()]) == (entries, False)  # retried, not read back
    assert model.calls == Counter(part=8, combine=2) and cache_file(tmp_path).exists()


def test_a_failed_combine_falls_back_to_the_joined_part_summaries(tmp_path: Path) -> None:
    model = SummaryModel(fail=lambda kind, user: kind == "combine", part_text=" " + "x" * 95)
    entries, cached = page_index_over(model, tmp_path).index(FILING, [long_page()])
    summary = entries[0]["page_summary"]
    assert cached is False and not cache_file(tmp_path).exists()
    assert len(summary) == SUMMARY_MAX_CHARS and summary.endswith("…")  # four 98-character summaries
    assert re.findall(r"P\d", summary) == ["P1", "P2", "P3", "P4"]
    assert summary.startswith(f"P1 {'x' * 95}；P2 ")


def test_a_second_call_reads_the_cache_and_an_old_version_cache_is_rebuilt(tmp_path: Path) -> None:
    model = SummaryModel()
    index = page_index_over(model, tmp_path)
    built = index.index(FILING, [long_page()])
    assert index.index(FILING, [long_page()]) == (built[0], True)
    assert page_index_over(SummaryModel(), tmp_path).index(FILING, [long_page()]) == (built[0], True)
    assert model.calls == Counter(part=4, combine=1)

    old = {**FILING, "total_pages": 1, "index": [{"page": "1", "page_summary": "first 6,000 chars only"}]}
    cache_file(tmp_path).write_text(json.dumps(old), encoding="utf-8")
    fresh = SummaryModel()
    assert page_index_over(fresh, tmp_path).index(FILING, [long_page()]) == (built[0], False)
    assert fresh.calls == Counter(part=4, combine=1)
    assert json.loads(cache_file(tmp_path).read_text("utf-8"))["summary_version"] == SUMMARY_VERSION
