"""Worker processes that start clean: spawned (a fresh interpreter: the server's threads are not
copied into it), or, for a dataset's readers, forked from a fork server (a fresh interpreter
started once, which imports what they run), without running the server's ``__main__`` again.

Streamlit installs the page being run as ``__main__``; a spawned process re-runs the file of
``__main__`` before its first task, which would execute a page (and the app's navigation) in the
worker, and so would a forked one. While a worker is started, ``__main__`` is a bare module, so the
worker starts with nothing but its imports (a task is a module-level function, found by its module).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
import types
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing.context import BaseContext, SpawnContext, SpawnProcess
from typing import Any, TypeVar

_main_lock = threading.Lock()
T = TypeVar("T")
R = TypeVar("R")


class _WorkerProcess(SpawnProcess):
    @staticmethod
    def _Popen(process_obj):  # noqa: ANN001, ANN205, N802 - multiprocessing's hook
        if sys.platform == "win32":
            from multiprocessing.popen_spawn_win32 import Popen
        else:
            from multiprocessing.popen_spawn_posix import Popen
        return _without_main(Popen, process_obj)


class WorkerContext(SpawnContext):
    """The multiprocessing context of such workers (``ProcessPoolExecutor(mp_context=...)``)."""

    Process = _WorkerProcess


def _without_main(popen: Callable[[Any], Any], process_obj: Any) -> Any:
    """``popen(process_obj)`` while ``__main__`` is a bare module (what the new process is told of)."""
    with _main_lock:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            return popen(process_obj)
        finally:
            sys.modules["__main__"] = main


# What a dataset's readers run, imported once by the fork server (see ReaderContext).
READER_MODULES = ["corpus.loading.validate", "corpus.predictions"]


if sys.platform != "win32":  # (no fork server there: its readers are spawned)
    from multiprocessing.context import ForkServerContext, ForkServerProcess

    class _ForkedReader(ForkServerProcess):
        @staticmethod
        def _Popen(process_obj):  # noqa: ANN001, ANN205, N802 - multiprocessing's hook
            from multiprocessing.popen_forkserver import Popen

            return _without_main(Popen, process_obj)

    class ReaderContext(ForkServerContext):
        """Workers forked from a fork server: a clean process started once (when first asked for, as
        spawned workers are, without the server's ``__main__``), which imports the readers' modules
        (:data:`READER_MODULES`) and forks each worker from itself. A worker then starts at once,
        where a spawned one imports pandas, pydantic and the readers again (a second each); the fork
        server lives as long as this process."""

        Process = _ForkedReader

        def __init__(self) -> None:
            super().__init__()
            self.set_forkserver_preload(READER_MODULES)


def start_readers() -> None:
    """Start the fork server of a dataset's readers now, where the platform has one: it imports
    the readers' modules in a process of its own (about a second on a 2-CPU machine) while this one
    goes on, and lives as long as this process. A long read calls this as it begins (before its
    files are listed), so that the workers it starts later fork at once."""
    if sys.platform == "win32" or "forkserver" not in multiprocessing.get_all_start_methods():
        return
    from multiprocessing import forkserver

    ReaderContext()  # (names the modules the fork server imports)
    _without_main(lambda _: forkserver.ensure_running(), None)


def reader_context() -> BaseContext:
    """The context of a dataset's reading workers: forked from a fork server where the platform has
    one, spawned otherwise."""
    if sys.platform != "win32" and "forkserver" in multiprocessing.get_all_start_methods():
        return ReaderContext()
    return WorkerContext()


def processors() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


def on_threads(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``fn`` of each of ``items``, in order, made on up to one thread per processor: for work that
    is mostly array arithmetic, which runs outside Python's lock."""
    items = list(items)
    with ThreadPoolExecutor(max_workers=max(1, min(processors(), len(items)))) as pool:
        return list(pool.map(fn, items))


class Workers:
    """Worker processes started when first asked for (:meth:`start`) and stopped on leaving the
    ``with`` block: a pool that a read shares between its parts. A worker lives for one read and
    makes no cycles worth collecting: its garbage collector is off (it would otherwise walk every
    object of a task's arguments as they are unpickled, half a second for a million actions)."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.n = 0

    def start(self, n: int) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(max_workers=n, mp_context=reader_context(), initializer=gc.disable)
            self.n = n
        return self.pool

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
