"""A sampler that leaves the code the rule can follow (stored on an object another file
reads, returned by a builder) still never gets its epoch set when no file of the project
names ``set_epoch`` and the project trains in loops of its own: TCK206 asks the project."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

DATA = """
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

class Bunch:
    def __init__(self, dataset, distributed):
        self.sampler = DistributedSampler(dataset) if distributed else None
        self.loader = DataLoader(dataset, batch_size=8, shuffle=self.sampler is None, sampler=self.sampler)
"""
TRAIN = """
def fit(model, optimizer, bunch, epochs):
    for epoch in range(epochs):
{set_epoch}        for x in bunch.loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
"""
SET_EPOCH = "        bunch.sampler.set_epoch(epoch)\n"
LIGHTNING_TRAIN = """
import lightning

def fit(model, bunch):
    lightning.Trainer(max_epochs=10).fit(model, bunch.loader)
    model.sanity_check().backward()
"""


def _findings(root: Path) -> list[tuple[str, int, str]]:
    result = lint(LintOptions(paths=(root,), select=("TCK206",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_a_sampler_read_by_another_files_epoch_loop_is_reported(tmp_path: Path) -> None:
    root = _project(tmp_path, {"data.py": DATA, "train.py": TRAIN.format(set_epoch="")})
    assert _findings(root) == [("data.py", 7, "TCK206")]


def test_set_epoch_in_another_file_keeps_it_silent(tmp_path: Path) -> None:
    root = _project(tmp_path, {"data.py": DATA, "train.py": TRAIN.format(set_epoch=SET_EPOCH)})
    assert _findings(root) == []


def test_a_project_that_does_not_train_in_its_own_loops_is_not_asked(tmp_path: Path) -> None:
    assert _findings(_project(tmp_path, {"data.py": DATA})) == []
    assert _findings(_project(tmp_path, {"train.py": LIGHTNING_TRAIN})) == []
