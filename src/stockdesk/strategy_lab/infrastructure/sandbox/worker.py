"""The sandbox worker: a process that runs rendered strategies, one fork per strategy.

Started by WorkerProcess by path (`python -I worker.py LIMITS`) with an empty environment and an
empty directory as cwd. It first confines a probe child the way it will confine every strategy
(confinement.py: a directory of its own, limits, namespaces, an unprivileged uid, seccomp) and
sends the layers the probe got with its READY; `worker.py --layers LIMITS` stops there. Then it
imports pandas once and for each request forks a child that confines itself (refusing to run
without a layer the probe got), runs the code in a fresh namespace with a few builtins, and sends
the weights back as .npy arrays; the worker removes the child's directory when it ends and itself
never runs strategy code. Only the standard library, numpy and pandas are imported here (numpy
and pandas inside functions, after the thread settings below).

Wire format, both ways: one kind byte, an 8-byte big-endian length, the payload.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import io
import json
import os
import pickle
import resource
import shutil
import signal
import struct
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

# replies: READY once (the layers, JSON), then per job WEIGHTS (.npy), FAILED (a message), MEMORY or
# KILLED (how)
READY, JOB, WEIGHTS, FAILED, MEMORY, KILLED = b"R", b"J", b"W", b"F", b"M", b"K"
HEADER = struct.Struct(">cQ")
MAX_OUTPUT_BYTES = 512 * 1024 * 1024
RESULT_FD = 3  # the child's only descriptor besides /dev/null on 0, 1 and 2
MIB = 1024 * 1024
# Read at import by the BLAS libraries: no worker threads, so that forking is safe (pyarrow's
# jemalloc keeps one background thread; jemalloc handles fork itself).
THREAD_SETTINGS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# Modules pandas imports lazily while the template runs: loaded before any child loses open().
PRELOAD = ("pandas.core.reshape.reshape", "encodings.unicode_escape")
ALLOWED_IMPORTS = frozenset({"pandas", "numpy", "__future__"})
SAFE_BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in (
        *("abs", "min", "max", "len", "range", "sum", "float", "int", "bool", "dict", "list", "tuple"),
        *("zip", "enumerate", "sorted", "round", "isinstance", "set", "str", "any", "all"),
        *("ValueError", "KeyError", "TypeError"),
    )
}


def write_frame(fd: int, kind: bytes, payload: bytes) -> None:
    _write_all(fd, HEADER.pack(kind, len(payload)) + payload)


def encode_weights(weights: object) -> bytes:
    """Dates, symbols and values as three .npy arrays: the parent reads them without unpickling."""
    import numpy as np
    import pandas as pd

    if not isinstance(weights, pd.DataFrame):
        raise TypeError(f"the strategy returned {type(weights).__name__}, not a DataFrame")
    columns = list(weights.columns)
    if not all(isinstance(c, str) for c in columns):
        raise TypeError("the strategy returned weights whose columns are not symbols")
    index = pd.DatetimeIndex(weights.index)
    if index.tz is not None:
        raise TypeError("the strategy returned weights on a time-zone aware index")
    buffer = io.BytesIO()
    for array in (index.to_numpy(), np.array(columns, dtype=str), weights.to_numpy(float, na_value=np.nan)):
        np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def decode_weights(data: bytes) -> Any:
    """The parent's side of encode_weights: typed arrays only (no pickle, no compression)."""
    import numpy as np
    import pandas as pd

    buffer = io.BytesIO(data)
    index, columns, values = (np.lib.format.read_array(buffer, allow_pickle=False) for _ in range(3))
    if index.dtype.kind != "M" or columns.dtype.kind != "U" or values.dtype != np.float64:
        raise ValueError("malformed weights from the sandbox")
    if values.shape != (len(index), len(columns)):
        raise ValueError("malformed weights from the sandbox: shape")
    return pd.DataFrame(values, index=pd.DatetimeIndex(index), columns=pd.Index(columns.tolist()))


def main() -> None:
    limits = json.loads(sys.argv[-1])
    confinement = _load_confinement().Confinement()
    layers = _probe(confinement, limits)
    if sys.argv[1] == "--layers":
        write_frame(1, READY, json.dumps(layers).encode())
        return
    required = frozenset(layer["name"] for layer in layers if layer["active"])
    os.environ.update(THREAD_SETTINGS)
    import pandas as pd

    for module in PRELOAD:
        importlib.import_module(module)
    sample = pd.DataFrame({"A": [0.5]}, index=pd.DatetimeIndex(["2024-01-02"]))
    encode_weights(pickle.loads(pickle.dumps(sample)))  # warms up pickle and .npy paths
    os.environ.clear()  # the strategy sees an empty environment
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        write_frame(1, READY, json.dumps(layers).encode())
        while (request := _read_frame(0)) is not None:
            job = _fork_job(request, limits, devnull, (confinement, required))
            write_frame(1, *job)
    finally:  # the parent went away without closing us: leave no empty directory behind
        with contextlib.suppress(OSError):
            os.rmdir(os.getcwd())


def _load_confinement() -> ModuleType:
    """confinement.py beside this file: run by path under -I, the worker has no package to import from."""
    spec = importlib.util.spec_from_file_location("confinement", Path(__file__).with_name("confinement.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # where its dataclass looks itself up
    spec.loader.exec_module(module)
    return module


def _probe(confinement: Any, limits: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The layers a child gets here: one confines itself as a strategy's would and reports them."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the probe child: never returns
        try:
            os.close(read_end)
            layers = confinement.apply(int(limits["cpu_seconds"]), int(limits["memory_mb"]), RESULT_FD + 1)
            _write_all(write_end, json.dumps([vars(layer) for layer in layers]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    output = b"".join(iter(lambda: os.read(read_end, MIB), b""))
    os.close(read_end)
    os.waitpid(pid, 0)
    shutil.rmtree(confinement.directory_of(pid), ignore_errors=True)
    layers: list[dict[str, Any]] = json.loads(output)  # a probe that died says nothing: the worker fails
    return layers


def _read_frame(fd: int) -> bytes | None:
    header = _read_exactly(fd, HEADER.size)
    if header is None:
        return None
    _, length = HEADER.unpack(header)
    return _read_exactly(fd, length)


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, missing = [], size
    while missing:
        chunk = os.read(fd, min(missing, MIB))
        if not chunk:
            return None
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def _fork_job(
    request: bytes, limits: Mapping[str, Any], devnull: int, confinement: tuple[Any, Collection[str]]
) -> tuple[bytes, bytes]:
    """One strategy in a child; (kind, payload) of the reply. The child's directory goes with it."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(read_end)
            _child(request, limits, devnull, write_end, confinement)
        finally:
            os._exit(0)
    os.close(write_end)
    output, size = [], 0
    while chunk := os.read(read_end, MIB):
        output.append(chunk)
        size += len(chunk)
        if size > MAX_OUTPUT_BYTES:
            os.kill(pid, signal.SIGKILL)
            break
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    shutil.rmtree(confinement[0].directory_of(pid), ignore_errors=True)
    data = b"".join(output)
    if size > MAX_OUTPUT_BYTES:
        return KILLED, b"output"
    if os.WIFSIGNALED(status):
        return KILLED, signal.Signals(os.WTERMSIG(status)).name.encode()
    if not data or data[:1] not in (WEIGHTS, FAILED, MEMORY):
        return KILLED, f"exit {os.WEXITSTATUS(status)}".encode()
    return data[:1], data[1:]


def _child(
    request: bytes,
    limits: Mapping[str, Any],
    devnull: int,
    write_end: int,
    confinement: tuple[Any, Collection[str]],
) -> None:
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.dup2(write_end, RESULT_FD)
    soft_nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    os.closerange(RESULT_FD + 1, soft_nofile if soft_nofile > 0 else os.sysconf("SC_OPEN_MAX"))
    job = pickle.loads(request)  # written by the parent, before any strategy code runs
    confine, required = confinement
    layers = confine.apply(int(limits["cpu_seconds"]), int(limits["memory_mb"]), RESULT_FD + 1)
    if (missing := confine.refused(layers, required)) is not None:
        _write_all(
            RESULT_FD,
            FAILED + f"the strategy sandbox lacks its {missing.name} layer: {missing.detail}".encode(),
        )
        return
    try:
        weights = _run(job["code"], job["closes"], job["fundamentals"])
    except MemoryError:
        result = MEMORY
    except BaseException as exc:  # anything the strategy raises is reported, never re-raised
        result = FAILED + f"the strategy failed computing weights: {type(exc).__name__}: {exc}".encode()
    else:
        try:
            result = WEIGHTS + encode_weights(weights)
        except MemoryError:
            result = MEMORY
        except Exception as exc:
            result = FAILED + str(exc).encode()
    _write_all(RESULT_FD, result)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _run(code: str, closes: Any, fundamentals: Any) -> Any:
    """The module in a fresh namespace with a few builtins; then its generate_weights."""
    namespace: dict[str, Any] = {
        "__builtins__": {**SAFE_BUILTINS, "__import__": _restricted_import},
        "__name__": "stockdesk_strategy",
    }
    exec(compile(code, "<strategy>", "exec"), namespace)
    function = namespace.get("generate_weights")
    if not callable(function):
        raise TypeError("generate_weights is not callable")
    return function(closes, fundamentals)


def _restricted_import(
    name: str,
    module_globals: Mapping[str, Any] | None = None,
    module_locals: Mapping[str, Any] | None = None,
    fromlist: Sequence[str] = (),
    level: int = 0,
) -> Any:
    if level == 0 and name in ALLOWED_IMPORTS:
        return builtins.__import__(name, module_globals, module_locals, fromlist, level)
    raise ImportError(f"import of {name!r} is not allowed in strategy code")


if __name__ == "__main__":
    main()
