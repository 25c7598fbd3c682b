"""Findings that span files, and notebooks, in the language server driven over stdio."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402

from tests.server.editor import Editor, EditorSession, apply, drive, write  # noqa: E402

MODEL = """from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)
"""
LOGITS_MODEL = MODEL.replace("return F.softmax(self.fc(x), dim=1)", "return self.fc(x)")
TRAIN = """from torch import nn
from model import Net


def step(x, y):
    return nn.CrossEntropyLoss()(Net()(x), y)
"""
ENGINE = """import torch


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(model(x).sum().item() for x in loader)
"""
RESTORING_ENGINE = ENGINE.replace(
    "        return sum(model(x).sum().item() for x in loader)\n",
    "        total = sum(model(x).sum().item() for x in loader)\n    model.train()\n    return total\n",
)
FIT = """from engine import evaluate


def fit(model, loader, optimizer, epochs):
    model.train()
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        evaluate(model, loader)
"""


def codes(diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "pyproject.toml", "[tool.torchcheck]\n")
    return tmp_path


def test_a_softmax_ended_forward_edited_in_its_buffer_updates_the_loss_finding_in_the_importer(project: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        model = write(project / "model.py", MODEL)
        train = write(project / "train.py", TRAIN)
        editor.open(model, MODEL)
        editor.open(train, TRAIN)
        [finding] = await editor.published(train)
        assert finding.code == "TCK605" and finding.range.start.line == 5
        assert "model.py:11" in finding.message
        [related] = finding.related_information or []
        assert related.location.uri == model and related.location.range.start.line == 10
        assert related.message == "`F.softmax(self.fc(x), dim=1)` in `Net`"
        editor.forget(train)
        editor.replace_text(model, LOGITS_MODEL, version=2)  # unsaved: model.py on disk still ends in a softmax
        assert await editor.published(train) == []
        editor.forget(train)
        editor.replace_text(model, MODEL, version=3)
        assert codes(await editor.published(train)) == ["TCK605"]

    session.run(scenario)


def test_an_importer_opened_alone_reads_the_saved_file_and_follows_its_changes_on_disk(project: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        write(project / "model.py", MODEL)
        train = write(project / "train.py", TRAIN)
        editor.open(train, TRAIN)
        assert codes(await editor.published(train)) == ["TCK605"]
        editor.forget(train)
        model = write(project / "model.py", LOGITS_MODEL)
        editor.file_changed_on_disk(model)
        assert await editor.published(train) == []

    session.run(scenario)


def test_closing_an_edited_file_brings_back_the_finding_its_saved_version_causes(project: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        model = write(project / "model.py", MODEL)
        train = write(project / "train.py", TRAIN)
        editor.open(model, LOGITS_MODEL)
        editor.open(train, TRAIN)
        assert await editor.published(train) == []
        editor.forget(train)
        editor.close(model)
        assert codes(await editor.published(train)) == ["TCK605"]

    session.run(scenario)


def test_a_file_linted_before_the_open_file_it_imports_waits_for_that_buffer(project: Path, session: EditorSession):
    # The two lints run in parallel worker processes; the model's, much longer, ends last.
    # Published before it, train.py would show what the saved model.py (a softmax) causes.
    slow_model = LOGITS_MODEL + "".join(f"\n\ndef helper_{i}(x):\n    return x * {i} + x.sum()\n" for i in range(3000))

    async def scenario(editor: Editor) -> None:
        model = write(project / "model.py", MODEL)
        train = write(project / "train.py", TRAIN)
        editor.open(model, slow_model)
        editor.open(train, TRAIN)
        assert await editor.published(train) == []

    session.run(scenario)


def test_a_helper_imported_from_another_file_that_leaves_eval_mode_on_is_flagged_at_the_call(project: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        engine = write(project / "engine.py", ENGINE)
        fit = write(project / "fit.py", FIT)
        editor.open(engine, ENGINE)
        editor.open(fit, FIT)
        [finding] = await editor.published(fit)
        assert finding.code == "TCK106" and finding.range.start.line == 10
        assert "engine.py:5" in finding.message
        editor.forget(fit)
        editor.replace_text(engine, RESTORING_ENGINE, version=2)
        assert await editor.published(fit) == []

    session.run(scenario)


def test_a_notebook_gets_each_finding_on_its_cell_counted_within_the_cell(project: Path, session: EditorSession):
    write(project / "model.py", MODEL)
    cells = [
        ("markdown", "# Training\n"),
        ("code", "import torch\nfrom torch import nn\nfrom model import Net\n%matplotlib inline\n"),
        ("code", "x, y = torch.ones(2, 4), torch.zeros(2).long()\nloss = nn.CrossEntropyLoss()(Net()(x), y)\n"),
        ("code", "layer = nn.Linear(4, 4)\nout = layer.forward(x)\n"),
    ]

    async def scenario(editor: Editor) -> None:
        notebook = (project / "analysis.ipynb").as_uri()
        _, imports, loss, forward = editor.open_notebook(notebook, cells)
        [cross_file] = await editor.published(loss)
        assert cross_file.code == "TCK605" and cross_file.range.start.line == 1 and "model.py:11" in cross_file.message
        [called] = await editor.published(forward)
        assert called.code == "TCK105" and (called.range.start.line, called.range.start.character) == (1, 6)
        assert await editor.published(imports) == []
        editor.forget(loss)
        editor.replace_cell_text(notebook, forward, "layer = nn.Linear(4, 4)\nout = layer(x)\n", version=2)
        assert await editor.published(forward) == []
        assert codes(await editor.published(loss)) == ["TCK605"]
        [noqa] = await editor.actions(loss, cross_file.range)
        assert noqa.title == "Ignore TCK605 on this line (# noqa: TCK605)"
        suppressed = apply(cells[2][1], noqa, loss)
        assert suppressed.splitlines()[1].endswith("(Net()(x), y)  # noqa: TCK605")
        editor.replace_cell_text(notebook, loss, suppressed, version=3)
        assert await editor.published(loss) == []

    session.run(scenario)


def test_a_place_in_another_cell_of_the_notebook_is_named_by_its_cell_and_linked_to_that_cell(project: Path, session: EditorSession):
    cells = [
        ("markdown", "# Training\n"),
        ("code", "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"),
        ("code", MODEL.split("\n\n\n", 1)[1]),
        ("code", "x, y = torch.ones(2, 4), torch.zeros(2).long()\nloss = nn.CrossEntropyLoss()(Net()(x), y)\n"),
    ]

    async def scenario(editor: Editor) -> None:
        notebook = (project / "defined_here.ipynb").as_uri()
        _, _, net, loss = editor.open_notebook(notebook, cells)
        [finding] = await editor.published(loss)
        assert finding.code == "TCK605"
        assert finding.message.endswith("/defined_here.ipynb:cell 3:7)")  # not the row of the joined cells
        [related] = finding.related_information or []
        assert related.location.uri == net and related.location.range.start.line == 6

    session.run(scenario)


def test_the_server_asks_a_client_that_can_watch_files_to_report_python_file_changes(project: Path):
    registrations: list[types.Registration] = []

    async def scenario(editor: Editor) -> None:
        @editor.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            registrations.extend(params.registrations)

        train = write(project / "train.py", TRAIN)
        editor.open(train, TRAIN)  # answered after the registration request, which the server sends first
        await editor.published(train)

    watched = types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
    drive(scenario, types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(did_change_watched_files=watched)))
    [registration] = registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert registration.register_options == {"watchers": [{"globPattern": "**/*.py"}]}
