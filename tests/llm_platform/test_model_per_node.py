"""The embedded model once per node: Ray workers share their node's server through a named actor.

A stand-in server (a tiny OpenAI-shaped HTTP server that logs each start to a file) replaces
llama.cpp, so these tests prove the sharing without loading the model; one slow test does it with
the real model.
"""

from __future__ import annotations

import functools
import itertools
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from stockdesk.llm_platform.application.llm_service import LLMService, ProviderRoute
from stockdesk.llm_platform.application.ping import PingAnswer, run_ping
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.llm_platform.infrastructure.embedded.node_server import (
    MODEL_ACTOR_PREFIX,
    ActorModelServer,
    ServerFactory,
    stop_node_models,
)
from stockdesk.llm_platform.infrastructure.embedded.provider import EmbeddedProvider
from stockdesk.shared.config import Settings
from tests.llm_platform.chat_server import StandInModelServer

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.usefixtures("ray_local")

TASKS = 4


@pytest.fixture
def prefix() -> Iterator[str]:
    name = f"test-model-{uuid.uuid4().hex[:8]}"
    yield name
    stop_node_models(name)


# max_calls=1: each task runs in a fresh worker process, so four tasks are four processes
@ray.remote(num_cpus=1, max_calls=1, max_retries=0)
def ask_the_node_model(factory: ServerFactory, prefix: str) -> tuple[int, str, str]:
    """One worker: an EmbeddedProvider on its node's server; closing it must not stop that server."""
    server = ActorModelServer(factory, name_prefix=prefix)
    provider = EmbeddedProvider(server, name="local")
    service = LLMService([ProviderRoute("local", provider)])
    text = service.generate("p").text
    service.close()
    return os.getpid(), server.base_url(), text


def test_four_workers_start_the_nodes_server_once(prefix: str, tmp_path: Path) -> None:
    start_log = tmp_path / "starts.log"
    factory = functools.partial(StandInModelServer, start_log)
    answers = ray.get([ask_the_node_model.remote(factory, prefix) for _ in range(TASKS)])
    pids = {pid for pid, _, _ in answers}
    urls = {url for _, url, _ in answers}
    assert len(pids) == TASKS  # four worker processes ...
    assert len(start_log.read_text().splitlines()) == 1
    assert len(urls) == 1  # ... one server, the one started once
    assert {text for _, _, text in answers} == {'{"answer": "stand-in"}'}
    # every worker closed its provider, and the node's server still answers
    (url,) = urls
    assert httpx.get(url.removesuffix("/v1") + "/health", timeout=5).status_code == 200
    node_id = ray.get_runtime_context().get_node_id()
    assert ray.get_actor(f"{prefix}-{node_id}") is not None
    assert stop_node_models(prefix) == 1
    with pytest.raises(ValueError):
        ray.get_actor(f"{prefix}-{node_id}")


@pytest.mark.slow
def test_two_ray_tasks_share_the_real_embedded_model(settings: Settings, models_dir: Path) -> None:
    @ray.remote(num_cpus=1, max_retries=0)
    def ping(settings: Settings) -> tuple[str, bool]:
        service = build_llm_service(settings, None, distributed=True)
        try:
            result = run_ping(service)
            return result.provider, isinstance(result.parsed, PingAnswer)
        finally:
            service.close()

    # the settings travel to the workers (they do not see this test's environment)
    configured = settings.model_copy(update={"models_dir_override": models_dir, "local_threads": 2})
    try:
        answers = ray.get([ping.remote(configured) for _ in range(2)])
        assert answers == [("local", True), ("local", True)]
        node_id = ray.get_runtime_context().get_node_id()
        assert ray.get_actor(f"{MODEL_ACTOR_PREFIX}-{node_id}") is not None
    finally:
        assert stop_node_models() == 1


@ray.remote(num_cpus=1, max_retries=0)
def hold_a_node_slot(factory: ServerFactory, prefix: str, log: str) -> None:
    """Take the node's slot, note when it was held, give it back."""
    import time

    server = ActorModelServer(factory, name_prefix=prefix, slots=1)
    with server.slot():
        began = time.time()
        time.sleep(0.3)
        with open(log, "a") as out:
            out.write(f"{began} {time.time()}\n")


def test_workers_take_turns_on_the_nodes_model_slots(prefix: str, tmp_path: Path) -> None:
    log = tmp_path / "held.log"
    factory = functools.partial(StandInModelServer, tmp_path / "starts.log")
    ray.get([hold_a_node_slot.remote(factory, prefix, str(log)) for _ in range(3)])
    spans = sorted(tuple(map(float, line.split())) for line in log.read_text().splitlines())
    assert len(spans) == 3
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end  # one slot: no two workers held it at once


def test_a_slot_whose_lease_ends_is_freed_for_the_next_worker(tmp_path: Path) -> None:
    from stockdesk.llm_platform.infrastructure.embedded.node_server import NodeModelActor

    actor = NodeModelActor(functools.partial(StandInModelServer, tmp_path / "starts.log"), slots=1)
    held = actor.acquire_slot(lease_seconds=0.2)  # a worker that dies holding its slot
    assert actor.busy_slots() == 1
    second = actor.acquire_slot(lease_seconds=5)  # waits for the lease to end, then gets the slot
    assert second != held and actor.busy_slots() == 1
    actor.release_slot(second)
    assert actor.busy_slots() == 0
