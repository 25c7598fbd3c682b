"""TCK206 reaches the training helper a loader is handed to every epoch, in the same file or
imported from another, and names where that helper trains."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code

_EPOCH_LOOP = """
from torch.utils.data import DataLoader, DistributedSampler
{import_line}

def main(model, optimizer, dataset, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        train_one_epoch(model, optimizer, loader)
"""
_HELPER = """
import torch.nn.functional as F


def train_one_epoch(model, optimizer, loader):
    for images, targets in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(images), targets).backward()
        optimizer.step()
"""
_HELPER_SETTING_THE_EPOCH = _HELPER.replace(
    "    for images, targets in loader:", "    loader.sampler.set_epoch(0)\n    for images, targets in loader:"
)


def _write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def _project_messages(root: Path, helper: str, monkeypatch) -> list[tuple[str, int, str]]:
    _write(root / "train.py", _EPOCH_LOOP.format(import_line="from engine import train_one_epoch"))
    _write(root / "engine.py", helper)
    monkeypatch.chdir(root)
    result = lint(LintOptions(paths=(Path("."),), use_cache=False))
    return [(d.filename, d.location.row, d.message) for d in result.diagnostics if d.code == "TCK206"]


def test_a_helper_of_the_same_file_is_named_with_its_line() -> None:
    source = _EPOCH_LOOP.format(import_line="") + _HELPER
    result = lint_source(source.encode(), "train.py", rules_by_code(["TCK206"]))
    [finding] = result.diagnostics
    assert finding.location.row == 6
    assert "in `train_one_epoch()` at line 17" in finding.message
    assert "neither file calls `set_epoch`" in finding.message


def test_an_imported_helper_is_named_with_its_file_and_line(tmp_path: Path, monkeypatch) -> None:
    [(filename, row, message)] = _project_messages(tmp_path, _HELPER, monkeypatch)
    assert (filename, row) == ("train.py", 5)
    assert "in `train_one_epoch()` at engine.py:7" in message


def test_an_imported_helper_that_sets_the_epoch_is_not_reported(tmp_path: Path, monkeypatch) -> None:
    assert _project_messages(tmp_path, _HELPER_SETTING_THE_EPOCH, monkeypatch) == []


_ONE_BRANCH = """
import torch

def main(model, loader, optimizer, args):
    if args.distributed:
        sampler = torch.utils.data.distributed.DistributedSampler(loader.dataset)
        loader = torch.utils.data.DataLoader(loader.dataset, sampler=sampler, batch_size=8)
    for epoch in range(10):
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        {after_epoch}
"""


def _tck206_rows(code: str) -> list[int]:
    result = lint_source(textwrap.dedent(code).encode(), "train.py", rules_by_code(("TCK206",)))
    return [finding.location.row for finding in result.diagnostics]


def test_a_loader_rebound_only_on_the_distributed_branch_is_followed_on_that_path() -> None:
    # `loader.dataset` reads the loader the function was given, before the distributed one is bound
    assert _tck206_rows(_ONE_BRANCH.format(after_epoch="pass")) == [6]


def test_a_loader_rebound_again_after_the_distributed_one_is_not_followed() -> None:
    assert _tck206_rows(_ONE_BRANCH.replace("    for epoch in range(10):", "    loader = wrap(loader)\n    for epoch in range(10):").format(after_epoch="pass")) == []


def test_an_epoch_loop_over_a_name_bound_to_a_counting_iterable() -> None:
    code = """
        import torch
        from tqdm import trange

        def train(model, dataset, optimizer, epochs):
            sampler = torch.utils.data.distributed.DistributedSampler(dataset)
            loader = torch.utils.data.DataLoader(dataset, sampler=sampler, batch_size=8)
            epoch_iterator = trange(epochs, desc="Epoch")
            for _ in epoch_iterator:
                for x, y in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
    """
    assert _tck206_rows(code) == [6]


_BUILT_AND_RETURNED = """
from torch.utils.data import DataLoader, DistributedSampler


def build_loader(dataset):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    return loader


def train(model, optimizer, loader, epochs):
{body}


def main(model, optimizer, dataset, epochs):
    train_loader = build_loader(dataset)
    train(model, optimizer, train_loader, epochs)
"""
# one pass over a loader whose dataset spans the whole run: the epoch is a step count, and
# nothing ever goes over the loader a second time, so there is no later epoch to reshuffle
_ONE_PASS = """\
    for step, (images, targets) in enumerate(loader):
        optimizer.zero_grad()
        model(images).sum().backward()
        optimizer.step()"""
_EPOCHS = """\
    for epoch in range(epochs):
        for images, targets in loader:
            optimizer.zero_grad()
            model(images).sum().backward()
            optimizer.step()"""


def test_a_returned_loader_is_followed_into_the_helper_that_iterates_it_once() -> None:
    assert _tck206_rows(_BUILT_AND_RETURNED.format(body=_ONE_PASS)) == []


def test_a_returned_loader_iterated_every_epoch_by_a_helper_is_reported() -> None:
    assert _tck206_rows(_BUILT_AND_RETURNED.format(body=_EPOCHS)) == [6]
