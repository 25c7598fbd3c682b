"""What a top-level function returns serves the files that import it: a ``DataParallel``
model that a loader function returns trains only if one of its importers trains (TCK204)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

LOADER = """
import torch

def load_model(params):
    return torch.nn.Linear(2, 2)

def load_model_and_optimizer(params):
    model = load_model(params)
    return model, torch.optim.Adam(model.parameters())

def load_from_checkpoint(params, state_dict, devices):
    model = load_model(params)
    model.load_state_dict(state_dict)
    if len(devices) > 1:
        model = torch.nn.DataParallel(model, device_ids=devices)
    return model
"""

SAMPLER = """
import torch
from loader import load_from_checkpoint

def sample(checkpoint, devices):
    model = load_from_checkpoint(checkpoint["params"], checkpoint["model"], devices)
    with torch.no_grad():
        return model(torch.zeros(2))
"""

TRAINER = """
from loader import load_model_and_optimizer{extra}

def train(loader):
    model, optimizer = load_model_and_optimizer({{}})
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK204",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics)


def test_a_wrapper_returned_only_to_files_that_never_train_serves_inference(tmp_path: Path) -> None:
    files = {"loader.py": LOADER, "sample.py": SAMPLER, "train.py": TRAINER.format(extra="")}
    assert _findings(tmp_path, files) == []


def test_a_wrapper_returned_to_a_file_that_trains_is_reported(tmp_path: Path) -> None:
    files = {"loader.py": LOADER, "sample.py": SAMPLER, "train.py": TRAINER.format(extra=", load_from_checkpoint")}
    assert _findings(tmp_path, files) == [("loader.py", 15)]


def test_a_wrapper_returned_to_no_file_of_the_project_is_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path, {"loader.py": LOADER}) == [("loader.py", 15)]


def test_a_wrapper_the_file_itself_uses_is_decided_by_the_file(tmp_path: Path) -> None:
    loader = LOADER + "\nmodel = load_from_checkpoint({}, {}, [0, 1])\n"
    files = {"loader.py": loader, "sample.py": SAMPLER}
    assert _findings(tmp_path, files) == [("loader.py", 15)]


def test_the_importers_of_a_module_of_a_namespace_package_are_found(tmp_path: Path) -> None:
    (tmp_path / "utils").mkdir()
    files = {"utils/loader.py": LOADER, "sample.py": SAMPLER.replace("from loader", "from utils.loader")}
    assert _findings(tmp_path, files) == []
