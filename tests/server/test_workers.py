"""The pool of lint workers: a job that kills its process fails alone, an abandoned job's
worker is stopped, and closing the pool leaves no process behind."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from torchcheck.server.workers import STALE_GRACE_SECONDS, JobFailed, WorkerDied, WorkerPool

# A worker speaking the real framing whose jobs crash, hang or echo, so that the pool is
# tested against real process deaths without depending on what crashes libcst today.
TEST_WORKER = """
import ctypes, sys, time
from torchcheck.server.worker_process import frame, read_frame
answers = sys.stdout.buffer
while (job := read_frame(sys.stdin.buffer)) is not None:
    name, args, kwargs = job
    if name == "crash":
        ctypes.string_at(0)  # a segmentation fault, as in a native parser
    if name == "sleep":
        time.sleep(args[0])
    if name == "fail":
        answers.write(frame(("error", "Traceback: a bug")))
    else:
        answers.write(frame(("ok", (name, args, kwargs, __import__("os").getpid()))))
    answers.flush()
"""
COMMAND = (sys.executable, "-c", TEST_WORKER)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "(zombie)" in status.read_text())


def in_pool(scenario, size: int = 1) -> None:
    async def run() -> None:
        pool = WorkerPool(size, COMMAND)
        try:
            await scenario(pool)
        finally:
            await pool.aclose()

    asyncio.run(run())


def test_a_job_that_crashes_its_worker_fails_with_the_signal_and_the_next_job_gets_a_new_worker():
    async def scenario(pool: WorkerPool) -> None:
        _, _, _, first = await pool.run("echo")
        with pytest.raises(WorkerDied, match="SIGSEGV"):
            await pool.run("crash")
        name, args, kwargs, second = await asyncio.wait_for(pool.run("echo", 1, text="x"), 60)
        assert (name, args, kwargs) == ("echo", (1,), {"text": "x"})
        assert second != first

    in_pool(scenario)


def test_a_job_that_raises_fails_with_the_traceback_and_its_worker_serves_on():
    async def scenario(pool: WorkerPool) -> None:
        _, _, _, first = await pool.run("echo")
        with pytest.raises(JobFailed, match="a bug"):
            await pool.run("fail")
        assert (await pool.run("echo"))[3] == first

    in_pool(scenario)


def test_an_abandoned_long_job_has_its_worker_killed_after_the_grace_period():
    async def scenario(pool: WorkerPool) -> None:
        [pid] = await _started(pool)
        job = asyncio.ensure_future(pool.run("sleep", 120))
        await asyncio.sleep(0.2)
        job.cancel()
        started = time.monotonic()
        _, _, _, replacement = await asyncio.wait_for(pool.run("echo"), 60)
        assert replacement != pid and not alive(pid)
        assert time.monotonic() - started >= STALE_GRACE_SECONDS - 0.3

    in_pool(scenario)


def test_a_short_abandoned_job_finishes_and_its_worker_is_kept():
    async def scenario(pool: WorkerPool) -> None:
        [pid] = await _started(pool)
        job = asyncio.ensure_future(pool.run("sleep", 0.1))
        await asyncio.sleep(0.05)
        job.cancel()
        assert (await asyncio.wait_for(pool.run("echo"), 60))[3] == pid

    in_pool(scenario)


def test_two_workers_run_two_jobs_at_once():
    async def scenario(pool: WorkerPool) -> None:
        await _started(pool, 2)
        slow = asyncio.ensure_future(pool.run("sleep", 30))
        await asyncio.sleep(0.1)
        started = time.monotonic()
        await asyncio.wait_for(pool.run("echo"), 60)
        assert time.monotonic() - started < 10 and not slow.done()
        slow.cancel()

    in_pool(scenario, size=2)


def test_closing_the_pool_stops_every_worker():
    pids: list[int] = []

    async def scenario(pool: WorkerPool) -> None:
        pids.extend(await _started(pool, 2))
        await pool.aclose()

    in_pool(scenario, size=2)
    assert not any(alive(pid) for pid in pids)


async def _started(pool: WorkerPool, count: int = 1) -> list[int]:
    """Run a job on each worker, so that all are up; their process ids."""
    answers = await asyncio.wait_for(asyncio.gather(*(pool.run("sleep", 0.3) for _ in range(count))), 60)
    return sorted({answer[3] for answer in answers})
