"""Lints in child processes, so that the editor's server neither waits for them nor dies with them.

Some buffers take minutes to lint (5 MB of code) or crash the interpreter that lints them
(libcst's native parser overflowing its stack on 60,000 nested parentheses). The server
hands each lint to one of a few worker processes (:mod:`torchcheck.server.worker_process`)
and only awaits the answer, so its event loop keeps answering the editor meanwhile; a
worker that dies fails its job with :class:`WorkerDied` and is replaced.

Cancelling the task that awaits a job abandons the job (its document changed or closed):
its answer is dropped, and if it is still running ``STALE_GRACE_SECONDS`` after it
started, its worker is killed and replaced. A short stale lint is left to finish, since
starting a worker (importing the engine and the rules) costs more than it does.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from torchcheck.server.worker_process import LENGTH_BYTES, frame

WORKER_COMMAND = (sys.executable, "-m", "torchcheck.server.worker_process")
# Two: a buffer that takes minutes leaves another worker for the rest of the editor's files.
WORKERS = 2
STALE_GRACE_SECONDS = 1.0

logger = logging.getLogger(__name__)


class WorkerDied(Exception):
    """The worker process ended while it ran a job."""

    def __init__(self, returncode: int | None) -> None:
        super().__init__(describe_exit(returncode))
        self.returncode = returncode


class JobFailed(Exception):
    """The job raised an exception in the worker (a bug); the message is its traceback."""


class PoolUnavailable(Exception):
    """No worker process can be started."""


def describe_exit(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        try:
            return f"killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class _Worker:
    """One worker process and the job it runs, if any."""

    def __init__(self, process: asyncio.subprocess.Process, on_free: Callable[[_Worker], None], on_lost: Callable[[_Worker], None]) -> None:
        self.process = process
        self.job: asyncio.Future[Any] | None = None
        self.started_at = 0.0
        self._on_free = on_free
        self._on_lost = on_lost
        self._kill_timer: asyncio.TimerHandle | None = None
        self._reader = asyncio.ensure_future(self._read_answers())

    def submit(self, function: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        self.job = loop.create_future()
        self.started_at = loop.time()
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(frame((function, args, kwargs)))
        except (BrokenPipeError, ConnectionResetError):
            pass  # it died: the reader sees its end and fails the job
        return self.job

    def abandon(self, grace: float) -> None:
        """Nobody waits for the job any more: kill the worker if it is still busy with it after ``grace``."""
        job = self.job
        if job is None or job.done():
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self.started_at + grace - loop.time())
        self._kill_timer = loop.call_later(delay, self._kill_if_busy_with, job)

    def kill(self) -> None:
        if self.process.returncode is None:
            try:
                self.process.kill()
            except ProcessLookupError:
                pass

    def _kill_if_busy_with(self, job: asyncio.Future[Any]) -> None:
        if self.job is job and not job.done():
            logger.info("killing worker %s: its lint is no longer wanted", self.process.pid)
            self.kill()

    async def _read_answers(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while True:
                header = await stream.readexactly(LENGTH_BYTES)
                body = await stream.readexactly(int.from_bytes(header, "big"))
                self._answered(body)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except Exception:  # noqa: BLE001 - an answer that cannot be read: this worker is out of step
            logger.exception("unreadable answer from lint worker %s", self.process.pid)
            self.kill()
        returncode = await self.process.wait()
        assert self.process.stdin is not None
        self.process.stdin.close()  # the last open pipe: the process's transport can close
        self._finish_job(exception=WorkerDied(returncode))
        self._on_lost(self)

    @property
    def finished(self) -> asyncio.Future[None]:
        """Done once the process has ended and its end is handled."""
        return self._reader

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not self._reader.done()

    def _answered(self, body: bytes) -> None:
        status, value = pickle.loads(body)
        if status == "ok":
            self._finish_job(value=value)
        else:
            self._finish_job(exception=JobFailed(value))
        self._on_free(self)

    def _finish_job(self, *, value: Any = None, exception: BaseException | None = None) -> None:
        if self._kill_timer is not None:
            self._kill_timer.cancel()
            self._kill_timer = None
        job, self.job = self.job, None
        if job is None or job.done():
            return
        if exception is not None:
            job.set_exception(exception)
            job.add_done_callback(lambda done: done.exception())  # abandoned jobs: nobody reads it
        else:
            job.set_result(value)


class WorkerPool:
    """A few worker processes, started on first use and replaced when they die."""

    def __init__(self, size: int = WORKERS, command: Sequence[str] = WORKER_COMMAND) -> None:
        self._size = size
        self._command = tuple(command)
        self._ready: asyncio.Queue[_Worker | None] | None = None
        self._workers: set[_Worker] = set()
        self._starting = 0
        self._closed = False
        self._failure: OSError | None = None
        atexit.register(self.close)

    def start(self) -> None:
        """Start the missing workers (they load the rules while the editor opens its files)."""
        if self._ready is None:
            self._ready = asyncio.Queue()
        while not self._closed and len(self._workers) + self._starting < self._size:
            self._starting += 1
            asyncio.ensure_future(self._spawn())

    async def run(self, function: str, *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` in a worker process (``function`` names one of
        :func:`~torchcheck.server.worker_process.jobs`).

        Raises WorkerDied when the worker died running it, JobFailed when it raised, and
        PoolUnavailable when no worker can be started.
        """
        self.start()
        assert self._ready is not None
        worker = await self._ready.get()
        while worker is None or not worker.alive:
            if worker is None:
                self._ready.put_nowait(None)  # for the next caller
                raise PoolUnavailable(str(self._failure))
            worker = await self._ready.get()  # it died while idle: its replacement is on the way
        job = worker.submit(function, args, kwargs)
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            worker.abandon(STALE_GRACE_SECONDS)
            raise

    def close(self) -> None:
        """Stop every worker now (at shutdown, and when the server's process exits)."""
        self._closed = True
        for worker in list(self._workers):
            if worker.process.returncode is None:
                try:
                    os.kill(worker.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    async def aclose(self) -> None:
        """Stop every worker and wait until each has ended."""
        workers = list(self._workers)
        self.close()
        await asyncio.gather(*(worker.finished for worker in workers), return_exceptions=True)

    async def _spawn(self) -> None:
        try:
            process = await asyncio.create_subprocess_exec(
                *self._command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
            )
        except OSError as error:
            logger.error("cannot start a lint worker (%s): %s", " ".join(self._command), error)
            self._failure = error
            self._starting -= 1
            if not self._workers and self._starting == 0 and self._ready is not None:
                self._ready.put_nowait(None)
            return
        self._starting -= 1
        worker = _Worker(process, self._free, self._lost)
        self._workers.add(worker)
        if self._closed:
            worker.kill()
            return
        logger.debug("lint worker %s started", process.pid)
        self._free(worker)

    def _free(self, worker: _Worker) -> None:
        if self._ready is not None and not self._closed:
            self._ready.put_nowait(worker)

    def _lost(self, worker: _Worker) -> None:
        self._workers.discard(worker)
        if self._closed:
            return
        logger.info("lint worker %s %s; starting another", worker.process.pid, describe_exit(worker.process.returncode))
        self._remove_from_ready(worker)
        self.start()

    def _remove_from_ready(self, worker: _Worker) -> None:
        """A worker that died while idle (killed from outside) must not be handed a job."""
        assert self._ready is not None
        kept = []
        while not self._ready.empty():
            ready = self._ready.get_nowait()
            if ready is not worker:
                kept.append(ready)
        for ready in kept:
            self._ready.put_nowait(ready)
