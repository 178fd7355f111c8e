"""The embedded model once per node: a named Ray actor on each node owns its llama.cpp server.

The server binds 127.0.0.1, so only workers on the same node can reach it: hence one per node,
named `stockdesk-model-<node_id>` and pinned there (NodeAffinitySchedulingStrategy, not soft).
The first worker of a node to call creates it (`get_if_exists`); the others find it.

Detached: the model outlives the worker that happened to create it. A non-detached actor dies
with its creator, so killing that one worker (or the driver, for a resumed run) would pull the
model from under every other worker on the node and reload 1 GB on the next call. The price is
that the model stays loaded until `stop_node_models()` or until Ray itself stops.

Slots: llama.cpp answers `slots` requests at once and queues the rest, and a queued request's
wait would count against its timeout (ten workers' experts queued behind one slot time out). So
the node's actor hands out its slots: a worker waits for one before it sends, and its timeout
starts then, as in one process. A slot is a lease: a worker killed mid-call frees it when the
lease ends.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from stockdesk.llm_platform.infrastructure.embedded.server import ModelServer

MODEL_ACTOR_PREFIX = "stockdesk-model"
ServerFactory = Callable[[], ModelServer]


SLOT_LEASE_SECONDS = 3600.0  # longer than any call's timeout: only a dead worker's slot expires
ACTOR_THREADS = 256  # waiting for a slot holds a thread; base_url calls must never wait behind them


class NodeModelActor:
    """Owns the node's model server and its slots (a threaded Ray actor)."""

    def __init__(self, server_factory: ServerFactory, slots: int = 1):
        self._server = server_factory()  # builds the server object; it starts on the first base_url
        self._slots = max(1, slots)
        self._leases: dict[str, float] = {}  # slot token -> when its lease ends
        self._free = threading.Condition()

    def acquire_slot(self, lease_seconds: float = SLOT_LEASE_SECONDS) -> str:
        """Wait for a free slot; its token (give it back with release_slot)."""
        with self._free:
            while True:
                now = time.monotonic()
                for token in [t for t, ends in self._leases.items() if ends <= now]:
                    del self._leases[token]  # its worker died holding it
                if len(self._leases) < self._slots:
                    token = uuid.uuid4().hex
                    self._leases[token] = now + lease_seconds
                    return token
                self._free.wait(timeout=min(self._leases.values()) - now)

    def release_slot(self, token: str) -> None:
        with self._free:
            self._leases.pop(token, None)
            self._free.notify()

    def busy_slots(self) -> int:
        with self._free:
            return len(self._leases)

    def base_url(self) -> str:
        return self._server.base_url()

    def restart_if_dead(self) -> bool:
        return self._server.restart_if_dead()

    def stop(self) -> None:
        self._server.stop()


class ActorModelServer:
    """The node's server seen from one worker, with the methods EmbeddedProvider uses.

    `server_factory` must pickle (it travels to the actor): e.g. a functools.partial of
    EmbeddedServer. It is used only by the worker that creates the node's actor.
    """

    def __init__(
        self, server_factory: ServerFactory, *, name_prefix: str = MODEL_ACTOR_PREFIX, slots: int = 1
    ):
        self._server_factory = server_factory
        self._name_prefix = name_prefix
        self._slots = slots
        self._handle: Any = None
        self._lock = threading.Lock()

    def base_url(self) -> str:
        return ray.get(self._actor().base_url.remote())

    def restart_if_dead(self) -> bool:
        return ray.get(self._actor().restart_if_dead.remote())

    def stop(self) -> None:
        """Nothing: the server is the node's, and other workers are using it."""

    @contextmanager
    def slot(self) -> Iterator[None]:
        """One of the node's model slots for the duration of a call (waits for a free one)."""
        actor = self._actor()
        token = ray.get(actor.acquire_slot.remote())
        try:
            yield
        finally:
            actor.release_slot.remote(token)

    def _actor(self) -> Any:
        with self._lock:
            if self._handle is None:
                node_id = ray.get_runtime_context().get_node_id()
                self._handle = (
                    ray.remote(NodeModelActor)
                    .options(
                        name=f"{self._name_prefix}-{node_id}",
                        get_if_exists=True,
                        lifetime="detached",
                        num_cpus=0,
                        max_concurrency=ACTOR_THREADS,
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node_id, soft=False),
                    )
                    .remote(self._server_factory, self._slots)
                )
            return self._handle


def stop_node_models(name_prefix: str = MODEL_ACTOR_PREFIX) -> int:
    """Unload the model on every node (kill the per-node actors of this namespace); how many."""
    names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if _ours(a, name_prefix)]
    for name in names:
        ray.kill(ray.get_actor(name))
    return len(names)


def _ours(actor: dict[str, str], name_prefix: str) -> bool:
    namespace = ray.get_runtime_context().namespace
    return actor.get("namespace") == namespace and actor.get("name", "").startswith(f"{name_prefix}-")
