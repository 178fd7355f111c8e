"""HTTP connections a cancelled job can cut while a call waits on them.

A provider call blocks in a socket read until the model answers (20-70 s for the embedded model,
minutes for a long remote answer). Closing a socket from another thread does not wake that read on
Linux, and a request that is never closed keeps the server working: llama.cpp's slot goes on
generating, a remote API goes on billing. `shutdown()` does both: the reading thread wakes at once
with a closed connection, and the server sees the client go (llama.cpp then cancels the slot's task).

So a call made inside a job goes through a client whose connections are recorded as they open and
shut down when the job is cancelled (`shared.tasks.cancel.cancel_hook`). One client per call, with no
kept-alive connections, so a cancel cuts exactly that call's connections and none of another job's.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import typing
import urllib.request
from urllib.parse import urlsplit

import httpcore
import httpx

from stockdesk.llm_platform.domain.exceptions import ABORTED


class _RecordedStream(httpcore.NetworkStream):
    """A connection's stream that tells its owner about the stream TLS puts in its place."""

    def __init__(self, inner: httpcore.NetworkStream, owner: AbortableConnections):
        self._inner, self._owner = inner, owner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._owner.forget(self._inner)
        self._inner.close()

    def start_tls(
        self,
        ssl_context: typing.Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        wrapped = self._inner.start_tls(ssl_context, server_hostname, timeout)
        self._owner.forget(self._inner)
        return self._owner.record(wrapped)

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class AbortableConnections(httpcore.NetworkBackend):
    """The network backend of one call: opens sockets as httpcore's own does, and can cut them all."""

    def __init__(self, inner: httpcore.NetworkBackend | None = None):
        self._inner = inner or httpcore.SyncBackend()
        self._open: list[httpcore.NetworkStream] = []
        self._lock = threading.Lock()
        self.aborted = False

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return self.record(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        return self.record(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)

    def record(self, stream: httpcore.NetworkStream) -> httpcore.NetworkStream:
        with self._lock:
            if not self.aborted:
                self._open.append(stream)
                return _RecordedStream(stream, self)
        stream.close()
        raise httpcore.ConnectError(ABORTED)

    def forget(self, stream: httpcore.NetworkStream) -> None:
        with self._lock:
            if stream in self._open:
                self._open.remove(stream)

    def abort(self) -> None:
        """Shut every open connection down (any thread): a read waiting on one ends at once."""
        with self._lock:
            self.aborted = True
            streams, self._open = self._open, []
        for stream in streams:
            sock = stream.get_extra_info("socket")
            if sock is None:
                continue
            with contextlib.suppress(OSError):  # already closed by the other side
                sock.shutdown(socket.SHUT_RDWR)


class AbortableTransport(httpx.HTTPTransport):
    """httpx's own transport (TLS, proxies, HTTP/1.1) whose connections go through `connections`.

    httpx takes no network backend, so the backend is set on its connection pool after it is built
    (`_network_backend`, httpcore's attribute since 1.0); tests/llm_platform/test_abortable_http.py
    fails if a new httpcore stops honouring it.
    """

    def __init__(self, proxy: str | None = None):
        super().__init__(proxy=proxy, limits=httpx.Limits(max_keepalive_connections=0))
        pool = self._pool
        self.connections = AbortableConnections(pool._network_backend)
        pool._network_backend = self.connections


def proxy_for(url: str | None) -> str | None:
    """The proxy the environment names for `url` (HTTPS_PROXY, NO_PROXY ...), as httpx would use it."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


def abortable_client(base_url: str | None) -> tuple[httpx.Client, AbortableConnections]:
    """A client for one call, and what cuts its connections."""
    transport = AbortableTransport(proxy=proxy_for(base_url))
    return httpx.Client(transport=transport), transport.connections
