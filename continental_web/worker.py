"""Heavy engine work in a separate process, with a hard time limit.

Checking an uploaded record replays every move, and trying a PPO model may import torch: seconds
of Python work. In a thread of the server it would hold the interpreter lock and slow every other
request; here it runs in worker processes (two, started on first use), so the event loop keeps
answering, and a job over its time limit is stopped by ending the process (a new one starts for
the next job). The jobs are plain functions of ``continental_web.replay`` (``check_record``) and
``continental_web.opponents`` (``probe_model``); this module only runs them.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import multiprocessing
import threading
from typing import Any

from continental_web.errors import WebError

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None


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


def run_once(fn: Any, *args: Any, timeout: float) -> Any:
    """``fn(*args)`` in a fresh process that ends with it (a model probe: whatever it imports,
    torch included, leaves with it); WebError 503 after ``timeout`` seconds."""
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    try:
        return pool.submit(fn, *args).result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
        raise WebError(503, f"the server stopped this work after {timeout:g} s") from None
    except concurrent.futures.process.BrokenProcessPool:
        raise WebError(503, "the worker process failed") from None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
