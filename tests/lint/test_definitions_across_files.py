"""What a name another file defines is - a class, a function - decides a finding that
depends on it: a sampler built by a class (whatever the case of its name) is never None,
while a function's result may be."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

DATASET = """
import random
from torch.utils.data import Sampler

class randomSequentialSampler(Sampler):
    def __init__(self, data_source, batch_size):
        self.num_samples, self.batch_size = len(data_source), batch_size
    def __iter__(self):
        return iter(random.sample(range(self.num_samples), self.num_samples))
    def __len__(self):
        return self.num_samples

def make_sampler(data_source, batch_size):
    return None if batch_size == 1 else randomSequentialSampler(data_source, batch_size)
"""

TRAIN = """
from torch.utils.data import DataLoader
import dataset

def loader(train_dataset, batch_size, random_sample):
    if not random_sample:
        sampler = dataset.{maker}(train_dataset, batch_size)
    else:
        sampler = None
    return DataLoader(train_dataset, batch_size=batch_size, shuffle=True, sampler=sampler)
"""


def _findings(root: Path) -> list[tuple[str, int, str]]:
    result = lint(LintOptions(paths=(root,), select=("TCK801",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def _project(root: Path, maker: str) -> Path:
    (root / "dataset.py").write_text(textwrap.dedent(DATASET), encoding="utf-8")
    (root / "train.py").write_text(textwrap.dedent(TRAIN.format(maker=maker)), encoding="utf-8")
    return root


def test_a_sampler_built_by_a_class_of_another_file_conflicts_with_shuffle(tmp_path: Path) -> None:
    assert _findings(_project(tmp_path, "randomSequentialSampler")) == [("train.py", 10, "TCK801")]


def test_a_sampler_returned_by_a_function_of_another_file_may_be_none(tmp_path: Path) -> None:
    assert _findings(_project(tmp_path, "make_sampler")) == []
