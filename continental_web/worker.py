"""Heavy engine work in a separate process, with a hard time limit.

Checking an uploaded record replays every move, and trying a PPO model may import torch: seconds
of Python work. In a thread of the server it would hold the interpreter lock and slow every other
request; here it runs in worker processes (two, started on first use), so the event loop keeps
answering, and a job over its time limit is stopped by ending the process (a new one starts for
the next job). The jobs are plain functions of ``continental_web.replay`` (``check_record``) and
``continental_web.opponents`` (``probe_model``); this module only runs them. When the server
stops (Ctrl-C or SIGTERM), ``stop_all`` ends every worker process it started.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import multiprocessing
import threading
from collections.abc import Callable
from typing import Any

from continental_web.errors import WebError

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_once: set[concurrent.futures.ProcessPoolExecutor] = set()  # ``run_once``'s pools now running


def _get_pool() -> concurrent.futures.ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=2, mp_context=multiprocessing.get_context("spawn")
            )
            atexit.register(shutdown)
        return _pool


def shutdown() -> None:
    """Stop the worker processes (at exit)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def stop_all(grace: float = 5.0) -> None:
    """End every worker process now, the pool's and any ``run_once``'s (the server is stopping:
    a SIGTERM ends the server without ``atexit``, and a worker left behind would keep the
    resource tracker alive too). Each gets ``grace`` seconds after SIGTERM, then SIGKILL. A
    caller that may still start one (the model probe) is stopped first (``run_once``'s
    ``cancelled``)."""
    global _pool
    with _lock:
        pools = [p for p in (_pool, *_once) if p is not None]
        _pool = None
        _once.clear()
    procs = [proc for pool in pools for proc in list(getattr(pool, "_processes", {}).values())]
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(grace)
        if proc.is_alive():
            proc.kill()
            proc.join(grace)
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)


def _kill_pool() -> None:
    """End the worker process (a job past its limit) so that the next job gets a fresh one."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is None:
        return
    for proc in list(getattr(pool, "_processes", {}).values()):
        proc.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def run(fn: Any, *args: Any, timeout: float) -> Any:
    """``fn(*args)`` in the worker process; WebError 503 after ``timeout`` seconds (the process is
    ended), and a WebError raised there is raised here."""
    try:
        future = _get_pool().submit(fn, *args)
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        _kill_pool()
        raise WebError(503, f"the server stopped this work after {timeout:g} s") from None
    except concurrent.futures.process.BrokenProcessPool:
        _kill_pool()
        raise WebError(503, "the worker process failed; try again") from None


def run_once(
    fn: Any, *args: Any, timeout: float, cancelled: Callable[[], bool] | None = None
) -> Any:
    """``fn(*args)`` in a fresh process that ends with it (a model probe: whatever it imports,
    torch included, leaves with it); WebError 503 after ``timeout`` seconds, or at once when
    ``cancelled()`` (the caller is stopping: checked under the lock ``stop_all`` takes, so no
    process starts after the caller's stop and ``stop_all``)."""
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    try:
        with _lock:
            if cancelled is not None and cancelled():
                raise WebError(503, "the server is stopping")
            _once.add(pool)
            future = pool.submit(fn, *args)  # starts the process, under the lock
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
        raise WebError(503, f"the server stopped this work after {timeout:g} s") from None
    except concurrent.futures.process.BrokenProcessPool:
        raise WebError(503, "the worker process failed") from None
    finally:
        with _lock:
            _once.discard(pool)
        pool.shutdown(wait=False, cancel_futures=True)
