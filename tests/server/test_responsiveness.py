"""The server keeps answering while a lint is slow, and survives a lint that kills its process."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402

from tests.server.editor import Editor, EditorSession, write  # noqa: E402

FORWARD_CALLED = "import torch\n\nmodel = torch.nn.Linear(2, 2)\nout = model.forward(torch.ones(2))\n"
TRAINING_LOOP = (Path(__file__).resolve().parents[2] / "fixtures" / "lint" / "TCK101_loss_kept_with_graph.py").read_text(encoding="utf-8")
# 300 KB of ordinary training code: seconds to lint (a lint is abandoned before it ends).
SLOW_TO_LINT = "".join(TRAINING_LOOP.replace("def ", f"def copy{number}_") for number in range(100))
# 60,000 parentheses in an f-string: libcst's native parser overflows its stack on it.
DEEP_FSTRING = 'import torch\nx = f"{' + "(" * 60000 + "1" + ")" * 60000 + '}"\n'
EVERYWHERE = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=99, character=0))
ANSWER_SECONDS = 3.0  # a request about another document, answered from what the server holds

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's children from /proc")


async def answered_in(editor: Editor, uri: str) -> float:
    started = time.monotonic()
    await asyncio.wait_for(editor.actions(uri, EVERYWHERE), ANSWER_SECONDS * 10)
    return time.monotonic() - started


async def open_probe(editor: Editor, directory: Path) -> str:
    """A small document with one finding, linted: requests about it need no lint."""
    probe = write(directory / "probe.py", FORWARD_CALLED)
    editor.open(probe, FORWARD_CALLED)
    assert [d.code for d in await editor.published(probe)] == ["TCK105"]
    return probe


def test_requests_are_answered_while_a_slow_lint_runs(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        probe = await open_probe(editor, tmp_path)
        slow = write(tmp_path / "large.py", SLOW_TO_LINT)
        editor.open(slow, SLOW_TO_LINT)
        await asyncio.sleep(0.2)  # the slow lint is under way
        assert await answered_in(editor, probe) < ANSWER_SECONDS
        assert slow not in editor.diagnostics  # still linting: the answer did not wait for it

    session.run(scenario)


def test_an_edit_abandons_the_slow_lint_of_the_older_text_and_only_the_latest_is_published(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", SLOW_TO_LINT)
        editor.open(uri, SLOW_TO_LINT)
        await asyncio.sleep(0.3)
        editor.replace_text(uri, FORWARD_CALLED, version=2)
        assert [d.code for d in await editor.published(uri)] == ["TCK105"]
        await asyncio.sleep(0.5)
        assert editor.versions[uri] == [2]

    session.run(scenario)


@linux_only
def test_a_lint_that_kills_its_process_is_a_tck000_finding_and_the_server_keeps_serving(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        probe = await open_probe(editor, tmp_path)
        uri = write(tmp_path / "train.py", SLOW_TO_LINT)
        editor.open(uri, SLOW_TO_LINT)
        await asyncio.sleep(1.0)
        for pid in editor.worker_pids():  # as libcst's parser does when its stack overflows
            os.kill(pid, signal.SIGSEGV)
        [problem] = await editor.published(uri)
        assert problem.code == "TCK000" and problem.severity == types.DiagnosticSeverity.Error
        assert "could not analyse this file" in problem.message and "SIGSEGV" in problem.message
        assert await answered_in(editor, probe) < ANSWER_SECONDS
        editor.replace_text(uri, FORWARD_CALLED, version=2)  # new workers lint the edited text
        assert [d.code for d in await editor.published(uri)] == ["TCK105"]

    session.run(scenario)


def test_a_buffer_nested_too_deeply_for_the_parser_is_a_tck000_finding_and_the_server_survives(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        probe = await open_probe(editor, tmp_path)
        uri = write(tmp_path / "deep.py", DEEP_FSTRING)
        editor.open(uri, DEEP_FSTRING)
        assert [d.code for d in await editor.published(uri)] == ["TCK000"]
        assert await answered_in(editor, probe) < ANSWER_SECONDS

    session.run(scenario)


@linux_only
def test_shutdown_is_answered_while_a_slow_lint_runs_and_no_worker_outlives_the_server(tmp_path: Path):
    async def session() -> None:
        editor = Editor(types.ClientCapabilities())
        await editor.start()
        slow = write(tmp_path / "large.py", SLOW_TO_LINT)
        editor.open(slow, SLOW_TO_LINT)
        await asyncio.sleep(0.5)
        workers = editor.worker_pids()
        started = time.monotonic()
        await asyncio.wait_for(editor.client.shutdown_async(None), ANSWER_SECONDS * 10)
        assert time.monotonic() - started < ANSWER_SECONDS
        editor.client.exit(None)
        await asyncio.wait_for(editor.client.stop(), ANSWER_SECONDS * 10)
        assert editor.client._server is not None and editor.client._server.returncode == 0
        assert len(workers) == 2 and not any(Path(f"/proc/{pid}").exists() for pid in workers)

    asyncio.run(session())
