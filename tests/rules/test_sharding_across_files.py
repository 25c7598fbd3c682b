"""A helper of another file that shards what it is given (``parallelize(model, mesh)``) counts
as sharding it, for every rule that asks what a call shards; one that only builds or logs
does not."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

PARALLEL = """
from torch.distributed.fsdp import fully_shard

def parallelize(model, mesh):
    for block in model.blocks:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)

def describe(model, mesh):
    print(model, mesh)
"""

TRAIN = """
import contextlib
import torch
from parallel import {helper}

def maybe_no_sync(model, sync):
    if sync or not hasattr(model, "no_sync"):
        return contextlib.nullcontext()
    return model.no_sync()

def main(model, mesh, loader, n):
    optimizer = torch.optim.AdamW(model.parameters())
    {helper}(model, mesh)
    for i, (x, y) in enumerate(loader):
        with maybe_no_sync(model, (i + 1) % n == 0):
            model(x).sub(y).pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def _findings(root: Path, helper: str) -> list[tuple[str, int, str]]:
    (root / "parallel.py").write_text(textwrap.dedent(PARALLEL), encoding="utf-8")
    (root / "train.py").write_text(textwrap.dedent(TRAIN.format(helper=helper)), encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK211", "TCK214"), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def test_an_imported_helper_that_shards_its_argument_shards_it(tmp_path: Path) -> None:
    assert _findings(tmp_path, "parallelize") == [("train.py", 12, "TCK211"), ("train.py", 15, "TCK214")]


def test_an_imported_helper_that_does_not_shard_leaves_the_module_alone(tmp_path: Path) -> None:
    assert _findings(tmp_path, "describe") == []


MODEL = """
import torch.nn as nn

class Transformer(nn.Module):
    def __init__(self, vocab, dim, tie=True):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        if tie:
            self.output.weight = self.tok_embeddings.weight
"""

PARALLELIZE = """
from torch.distributed.fsdp import fully_shard
from model import Transformer

def apply_fsdp(model: Transformer, mesh):
    fully_shard(model.tok_embeddings, mesh=mesh)
    fully_shard({last_group}, mesh=mesh)
    fully_shard(model, mesh=mesh)
"""


def _tie_findings(root: Path, last_group: str) -> list[tuple[str, int, str]]:
    (root / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    (root / "parallelize.py").write_text(textwrap.dedent(PARALLELIZE.format(last_group=last_group)), encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK212",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def test_a_tie_in_a_class_of_another_file_splits_across_shard_groups(tmp_path: Path) -> None:
    assert _tie_findings(tmp_path, "[model.norm, model.output]") == [("parallelize.py", 7, "TCK212")]


def test_untied_submodules_of_a_class_of_another_file_may_shard_apart(tmp_path: Path) -> None:
    assert _tie_findings(tmp_path, "model.norm") == []
