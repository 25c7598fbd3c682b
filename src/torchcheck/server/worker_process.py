"""The child process that lints for the language server: ``python -m torchcheck.server.worker_process``.

It reads jobs from standard input and writes their answers to standard output, one at a
time, each a pickled value after its length (8 bytes, big-endian). A job is the name of
one of :func:`jobs`, its positional and its keyword arguments; an answer is ``("ok",
value)`` or ``("error", traceback)``. It exits at the end of its input, or soon after the server is gone.

Whatever the analysis does to this process (a native crash, a stack overflow, minutes of
work), the server survives it: see :mod:`torchcheck.server.workers`.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

LENGTH_BYTES = 8
PARENT_POLL_SECONDS = 1.0


def frame(value: object) -> bytes:
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(body).to_bytes(LENGTH_BYTES, "big") + body


def read_frame(stream: BinaryIO) -> object | None:
    """The next value on ``stream``; None at its end."""
    header = stream.read(LENGTH_BYTES)
    if len(header) < LENGTH_BYTES:
        return None
    body = stream.read(int.from_bytes(header, "big"))
    return pickle.loads(body)


def jobs() -> dict[str, Callable[..., Any]]:
    from torchcheck.server import linting

    return {"lint": linting.lint_document, "fix_all": linting.fix_all}


def _load_rules() -> None:
    """Import the engine and every rule now, so the first job is as fast as the next."""
    from torchcheck.lint import engine, registry  # noqa: F401

    registry.all_rules()


def _exit_with_parent(parent: int) -> None:
    """A server killed outright closes no pipe we are blocked on mid-job: stop when it is gone."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(0)


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    known = jobs()
    _load_rules()
    while (request := read_frame(requests)) is not None:
        name, args, kwargs = request  # type: ignore[misc]
        try:
            answer: tuple[str, object] = ("ok", known[name](*args, **kwargs))
        except Exception:  # noqa: BLE001 - a bug in a rule is reported to the server, which logs it
            answer = ("error", traceback.format_exc())
        answers.write(frame(answer))
        answers.flush()


def main() -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print goes to the log, not into an answer
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    try:
        serve(sys.stdin.buffer, answers)
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
