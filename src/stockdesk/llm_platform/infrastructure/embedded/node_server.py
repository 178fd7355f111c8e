"""The embedded model once per node: a named Ray actor on each node owns its llama.cpp server.

The server binds 127.0.0.1, so only workers on the same node can reach it: hence one per node,
named `stockdesk-model-<node_id>` and pinned there (NodeAffinitySchedulingStrategy, not soft).
The first worker of a node to call creates it (`get_if_exists`); the others find it.

Detached: the model outlives the worker that happened to create it. A non-detached actor dies
with its creator, so killing that one worker (or the driver, for a resumed run) would pull the
model from under every other worker on the node and reload 1 GB on the next call. The price is
that the model stays loaded until `stop_node_models()` or until Ray itself stops.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from stockdesk.llm_platform.infrastructure.embedded.server import ModelServer

MODEL_ACTOR_PREFIX = "stockdesk-model"
ServerFactory = Callable[[], ModelServer]


class NodeModelActor:
    """Owns the node's model server (runs as a Ray actor; threaded, the server has its own lock)."""

    def __init__(self, server_factory: ServerFactory):
        self._server = server_factory()  # builds the server object; it starts on the first base_url

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

    def __init__(self, server_factory: ServerFactory, *, name_prefix: str = MODEL_ACTOR_PREFIX):
        self._server_factory = server_factory
        self._name_prefix = name_prefix
        self._handle: Any = None
        self._lock = threading.Lock()

    def base_url(self) -> str:
        return ray.get(self._actor().base_url.remote())

    def restart_if_dead(self) -> bool:
        return ray.get(self._actor().restart_if_dead.remote())

    def stop(self) -> None:
        """Nothing: the server is the node's, and other workers are using it."""

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
                        max_concurrency=8,
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node_id, soft=False),
                    )
                    .remote(self._server_factory)
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
