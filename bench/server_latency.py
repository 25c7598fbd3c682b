"""Can `torchcheck server` keep up with typing in a 1,000-line model file?

    python bench/server_latency.py [--package timm==1.0.31] [--edits 30]

Takes the model file of the package closest to 1,000 lines and prints the median and
90th-percentile time of:
  lint      linting its text in process (what the server does once per pause in typing),
            wall-clock and CPU time (the CPU time is what it takes on an idle core),
  pause     a one-character edit sent to the server over stdio until its diagnostics arrive
            (includes the debounce delay),
  burst     twenty keystrokes 30 ms apart: from the last one until the diagnostics arrive,
            and how many times the server linted during the burst.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from common import download, torch_files
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from torchcheck.server.language_server import DEBOUNCE_SECONDS
from torchcheck.server.linting import lint_document

TARGET_LINES = 1_000
KEYSTROKE_SECONDS = 0.03
BURST_KEYSTROKES = 20


def model_file(package: str) -> Path:
    files = torch_files(download(package))
    return min(files, key=lambda path: abs(len(path.read_text(encoding="utf-8").splitlines()) - TARGET_LINES))


def summary(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:6.1f} ms   p90 {p90 * 1000:6.1f} ms   (n={len(ordered)})"


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


class Session:
    """A real LSP client talking to `torchcheck server` over stdio."""

    def __init__(self, path: Path, text: str) -> None:
        self.uri = path.as_uri()
        self.text = text
        self.version = 1
        self.published: list[tuple[float, int | None]] = []
        self.arrived = asyncio.Event()
        self.client = LanguageClient("server-latency", "1")

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.append((time.perf_counter(), params.version))
            self.arrived.set()

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "torchcheck", "server")
        await self.client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
        self.client.initialized(types.InitializedParams())
        item = types.TextDocumentItem(uri=self.uri, language_id="python", version=1, text=self.text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        await self.wait_for(1)

    async def wait_for(self, version: int) -> float:
        while not self.published or self.published[-1][1] != version:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), timeout=60)
        return self.published[-1][0]

    def type_character(self, character: str) -> None:
        """Insert one character at the end of the first line, as a keystroke would."""
        first_line = self.text.split("\n", 1)[0]
        position = types.Position(line=0, character=len(first_line.encode("utf-16-le")) // 2)
        self.text = first_line + character + self.text[len(first_line) :]
        self.version += 1
        change = types.TextDocumentContentChangePartial(range=types.Range(start=position, end=position), text=character)
        document = types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=document, content_changes=[change]))

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def through_server(path: Path, text: str, edits: int) -> tuple[list[float], list[float], list[int]]:
    session = Session(path, text)
    await session.start()
    pauses = []
    for _ in range(edits):
        start = time.perf_counter()
        session.type_character(" ")
        pauses.append(await session.wait_for(session.version) - start)
    bursts, lints = [], []
    for _ in range(max(3, edits // 10)):
        before = len(session.published)
        for _ in range(BURST_KEYSTROKES):
            session.type_character(" ")
            last = time.perf_counter()
            await asyncio.sleep(KEYSTROKE_SECONDS)
        bursts.append(await session.wait_for(session.version) - last)
        lints.append(len(session.published) - before)
    await session.stop()
    return pauses, bursts, lints


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="timm==1.0.31")
    parser.add_argument("--edits", type=int, default=30)
    options = parser.parse_args()
    path = model_file(options.package)
    text = path.read_text(encoding="utf-8")
    print(f"{path.name}: {len(text.splitlines())} lines, debounce {DEBOUNCE_SECONDS * 1000:.0f} ms")
    wall, cpu = lint_in_process(path, text, options.edits)
    print(f"lint   {summary(wall)}")
    print(f"  cpu  {summary(cpu)}")
    pauses, bursts, lints = asyncio.run(through_server(path, text, options.edits))
    print(f"pause  {summary(pauses)}")
    print(f"burst  {summary(bursts)}   lints per {BURST_KEYSTROKES} keystrokes: {statistics.median(lints):.0f}")


if __name__ == "__main__":
    main()
