"""Can `torchcheck server` keep up with typing in a 1,000-line model file, and with edits
whose findings land in another file?

    python bench/server_latency.py [--package timm==1.0.31] [--edits 30]

Takes the model file of the package closest to 1,000 lines and prints the median and
95th-percentile time of:
  lint       linting its text in process (what the server does once per pause in typing),
             wall-clock and CPU time (the CPU time is what it takes on an idle core),
  pause      a one-character edit sent to the server over stdio until its diagnostics
             arrive (includes the debounce delay), and the CPU time per edit of the server
             and its lint workers,
  burst      twenty keystrokes 30 ms apart: from the last one until the diagnostics arrive,
             and how many times the server linted during the burst,
  cross-file a project whose model.py is that file plus a network whose forward ends in a
             softmax, and a train.py that feeds it to CrossEntropyLoss, both open: an edit
             of model.py that removes (or restores) the softmax, until train.py's
             diagnostics are republished without (or with) TCK605; the server's CPU time
             per edit,
  index      of that, in process, what the project index adds to the lint of model.py:
             recording its summary and resolving train.py's findings again,
  busy       while a buffer of --busy-megabytes of training code is being linted, the
             round trip of a code-action request on the model file (the server lints in
             worker processes, so it answers meanwhile).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import download, torch_files
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from torchcheck.server.language_server import DEBOUNCE_SECONDS
from torchcheck.server.linting import lint_document
from torchcheck.server.project_state import ProjectIndexes

TARGET_LINES = 1_000
KEYSTROKE_SECONDS = 0.03
BURST_KEYSTROKES = 20
SOFTMAX_NET = """

class SoftmaxNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(x).softmax(dim=-1)
"""
LOGITS_LINE = "        return self.head(x)\n"
SOFTMAX_LINE = "        return self.head(x).softmax(dim=-1)\n"
TRAIN = """import torch
from torch import nn
from model import SoftmaxNet

criterion = nn.CrossEntropyLoss()


def step(x, y):
    return criterion(SoftmaxNet()(x), y)
"""


def model_file(package: str) -> Path:
    files = torch_files(download(package))
    return min(files, key=lambda path: abs(len(path.read_text(encoding="utf-8").splitlines()) - TARGET_LINES))


def summary(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(ordered) * 1000:6.1f} ms   p95 {p95 * 1000:6.1f} ms   (n={len(ordered)})"


def lint_in_process(path: Path, text: str, edits: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds per lint (CPU time is what it costs on an idle core)."""
    lint_document(text, path)  # imports libcst and the rules once, as the server's first lint does
    wall, cpu = [], []
    for edit in range(edits):
        edited = text + f"# edit {edit}\n"
        start, start_cpu = time.perf_counter(), time.process_time()
        lint_document(edited, path)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def process_cpu_seconds(pid: int) -> float:
    """User and system CPU time of a running process, from Linux's /proc (10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The process's children (the server's lint workers), from Linux's /proc."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


class Session:
    """A real LSP client talking to `torchcheck server` over stdio."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.published: dict[str, list[tuple[float, int | None, list[types.Diagnostic]]]] = {}
        self.arrived = asyncio.Event()
        self.client = LanguageClient("server-latency", "1")

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, []).append((time.perf_counter(), params.version, list(params.diagnostics)))
            self.arrived.set()

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "torchcheck", "server")
        await self.client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
        self.client.initialized(types.InitializedParams())

    def cpu_seconds(self) -> float:
        """CPU time of the server and of its lint workers (a worker replaced meanwhile is not counted)."""
        server = self.client._server.pid  # pygls keeps the server process it started here
        return sum(process_cpu_seconds(pid) for pid in (server, *children(server)))

    async def answer_seconds(self, uri: str) -> float:
        """The round trip of a code-action request about ``uri``."""
        start = time.perf_counter()
        everywhere = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
        context = types.CodeActionContext(diagnostics=[])
        params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=everywhere, context=context)
        await asyncio.wait_for(self.client.text_document_code_action_async(params), timeout=600)
        return time.perf_counter() - start

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))

    async def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.texts[uri], self.versions[uri] = text, 1
        item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        await self.wait_for(uri, 1)
        return uri

    async def wait_until(self, uri: str, arrived: object) -> float:
        """When the newest publication for ``uri`` first satisfied ``arrived(version, diagnostics)``."""
        while not (self.published.get(uri) and arrived(*self.published[uri][-1][1:])):
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), timeout=60)
        return self.published[uri][-1][0]

    async def wait_for(self, uri: str, version: int) -> float:
        return await self.wait_until(uri, lambda published, _: published == version)

    def type_character(self, uri: str, character: str) -> None:
        """Insert one character at the end of the first line, as a keystroke would."""
        text = self.texts[uri]
        first_line = text.split("\n", 1)[0]
        position = types.Position(line=0, character=len(first_line.encode("utf-16-le")) // 2)
        self.texts[uri] = first_line + character + text[len(first_line) :]
        self._change(uri, types.TextDocumentContentChangePartial(range=types.Range(start=position, end=position), text=character))

    def replace_line(self, uri: str, old: str, new: str) -> None:
        """Replace the last line that reads ``old`` with ``new``, as an edit in the editor would."""
        text = self.texts[uri]
        offset = text.rindex(old)
        line = text.count("\n", 0, offset)
        self.texts[uri] = text[:offset] + new + text[offset + len(old) :]
        where = types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line + 1, character=0))
        self._change(uri, types.TextDocumentContentChangePartial(range=where, text=new))

    def _change(self, uri: str, change: types.TextDocumentContentChangePartial) -> None:
        self.versions[uri] += 1
        document = types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri])
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=document, content_changes=[change]))

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def through_server(path: Path, text: str, edits: int) -> tuple[list[float], list[float], list[float], list[int]]:
    session = Session()
    await session.start()
    uri = await session.open(path, text)
    pauses, cpu = [], []
    for _ in range(edits):
        start, start_cpu = time.perf_counter(), session.cpu_seconds()
        session.type_character(uri, " ")
        pauses.append(await session.wait_for(uri, session.versions[uri]) - start)
        cpu.append(session.cpu_seconds() - start_cpu)
    bursts, lints = [], []
    for _ in range(max(3, edits // 10)):
        before = len(session.published[uri])
        for _ in range(BURST_KEYSTROKES):
            session.type_character(uri, " ")
            last = time.perf_counter()
            await asyncio.sleep(KEYSTROKE_SECONDS)
        bursts.append(await session.wait_for(uri, session.versions[uri]) - last)
        lints.append(len(session.published[uri]) - before)
    await session.stop()
    return pauses, cpu, bursts, lints


async def across_files(text: str, edits: int) -> tuple[list[float], list[float]]:
    """Edits of a big model.py, each until train.py's diagnostics follow it."""
    with tempfile.TemporaryDirectory() as folder:
        model_path, train_path = _project(Path(folder), text)
        session = Session()
        await session.start()
        model = await session.open(model_path, model_path.read_text(encoding="utf-8"))
        train = await session.open(train_path, TRAIN)
        assert _flags(session.published[train][-1][2]), "train.py should start with TCK605"
        wall, cpu = [], []
        for edit in range(edits):
            softmax = edit % 2 == 1  # odd edits put the softmax back
            start, start_cpu = time.perf_counter(), session.cpu_seconds()
            session.replace_line(model, LOGITS_LINE if softmax else SOFTMAX_LINE, SOFTMAX_LINE if softmax else LOGITS_LINE)
            wall.append(await session.wait_until(train, lambda _, diagnostics: _flags(diagnostics) == softmax) - start)
            await session.wait_for(model, session.versions[model])
            cpu.append(session.cpu_seconds() - start_cpu)
        await session.stop()
    return wall, cpu


async def while_busy(path: Path, text: str, megabytes: float, requests: int) -> list[float]:
    """Round trips of requests about ``path`` while a buffer of ``megabytes`` of code is linted."""
    block = (Path(__file__).resolve().parents[1] / "fixtures" / "lint" / "TCK101_loss_kept_with_graph.py").read_text(encoding="utf-8")
    copies = max(1, int(megabytes * 1_000_000 / len(block)))
    large = "".join(block.replace("def ", f"def copy{number}_") for number in range(copies))
    with tempfile.TemporaryDirectory() as folder:
        session = Session()
        await session.start()
        uri = await session.open(path, text)
        large_path = Path(folder) / "large.py"
        item = types.TextDocumentItem(uri=large_path.as_uri(), language_id="python", version=1, text=large)
        session.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        seconds = []
        for _ in range(requests):
            await asyncio.sleep(0.1)
            seconds.append(await session.answer_seconds(uri))
        assert large_path.as_uri() not in session.published, "the large buffer should still be linting"
        session.close(large_path.as_uri())
        await session.stop()
    return seconds


def index_in_process(text: str, edits: int) -> list[float]:
    """Seconds the project index takes per edit of model.py (its lint not counted)."""
    with tempfile.TemporaryDirectory() as folder:
        model, train = _project(Path(folder), text)
        indexes = ProjectIndexes()
        model_text = model.read_text(encoding="utf-8")
        for path in (model, train):
            indexes.update(path, path.as_uri(), lint_document(path.read_text(encoding="utf-8"), path))
        seconds = []
        for edit in range(edits):
            softmax = edit % 2 == 1
            edited = model_text if softmax else model_text.replace(SOFTMAX_LINE, LOGITS_LINE)
            linted = lint_document(edited, model)
            start = time.perf_counter()
            updates = indexes.update(model, model.as_uri(), linted)
            seconds.append(time.perf_counter() - start)
            assert any(uri == train.as_uri() for uri, _ in updates), "train.py's findings should follow each edit"
    return seconds


def _project(folder: Path, text: str) -> tuple[Path, Path]:
    """model.py (``text`` and a softmax-ended network) and train.py (its loss) under ``folder``."""
    (folder / "pyproject.toml").write_text("[tool.torchcheck]\n", encoding="utf-8")
    (folder / "model.py").write_text(text + SOFTMAX_NET, encoding="utf-8")
    (folder / "train.py").write_text(TRAIN, encoding="utf-8")
    return folder / "model.py", folder / "train.py"


def _flags(diagnostics: list[types.Diagnostic]) -> bool:
    return any(diagnostic.code == "TCK605" for diagnostic in diagnostics)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="timm==1.0.31")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--busy-megabytes", type=float, default=1.0)
    options = parser.parse_args()
    path = model_file(options.package)
    text = path.read_text(encoding="utf-8")
    print(f"{path.name}: {len(text.splitlines())} lines, debounce {DEBOUNCE_SECONDS * 1000:.0f} ms, {os.cpu_count()} cores")
    wall, cpu = lint_in_process(path, text, options.edits)
    print(f"lint        {summary(wall)}")
    print(f"  cpu       {summary(cpu)}")
    pauses, pause_cpu, bursts, lints = asyncio.run(through_server(path, text, options.edits))
    print(f"pause       {summary(pauses)}")
    print(f"  cpu       {summary(pause_cpu)}")
    print(f"burst       {summary(bursts)}   lints per {BURST_KEYSTROKES} keystrokes: {statistics.median(lints):.0f}")
    cross_wall, cross_cpu = asyncio.run(across_files(text, options.edits))
    print(f"cross-file  {summary(cross_wall)}")
    print(f"  cpu       {summary(cross_cpu)}")
    print(f"index       {summary(index_in_process(text, options.edits))}")
    busy = asyncio.run(while_busy(path, text, options.busy_megabytes, 10))
    print(f"busy        {summary(busy)}   (a {options.busy_megabytes:g} MB buffer linting meanwhile)")


if __name__ == "__main__":
    main()
