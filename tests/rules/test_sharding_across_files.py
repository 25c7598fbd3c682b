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


MODELING = """
import torch
import torch.nn as nn

class Rope(nn.Module):
    def __init__(self, dim):
        super().__init__()
        inv_freq = 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

class TextModel(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rope = Rope(dim)

class Plain(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
"""

LOAD = """
import torch
from modeling import {model}

def materialise(dim, state_dict):
    with torch.device("meta"):
        model = {model}(dim)
    model.to_empty(device="cuda")
    {after}
    model.load_state_dict(state_dict)
    return model
"""


def _to_empty_findings(root: Path, model: str, after: str = "pass") -> list[tuple[str, int, str, str]]:
    (root / "modeling.py").write_text(textwrap.dedent(MODELING), encoding="utf-8")
    (root / "load.py").write_text(textwrap.dedent(LOAD.format(model=model, after=after)), encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK612",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code, d.message) for d in result.diagnostics)


def test_to_empty_on_a_model_whose_class_of_another_file_computes_a_buffer(tmp_path: Path) -> None:
    [(name, row, code, message)] = _to_empty_findings(tmp_path, "TextModel")
    assert (name, row, code) == ("load.py", 8, "TCK612")
    assert message.startswith("to_empty() leaves `Rope.inv_freq` at ")
    assert "modeling.py:9 (a non-persistent buffer that `TextModel` computes in __init__) uninitialised" in message


def test_to_empty_followed_by_an_init_method_or_on_a_class_without_such_buffers(tmp_path: Path) -> None:
    assert _to_empty_findings(tmp_path, "TextModel", after="model.init_weights()") == []
    assert _to_empty_findings(tmp_path, "Plain") == []


AFTER_FORWARD = """
import torch
from parallel import {helper}

def probe(head):
    probe_optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    return probe_optimizer

def fit(model, mesh, x):
    {helper}(model, mesh)
    model(x)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return optimizer
"""


def test_an_optimizer_built_after_a_forward_is_reported_only_if_the_helper_shards(tmp_path: Path) -> None:
    (tmp_path / "parallel.py").write_text(textwrap.dedent(PARALLEL), encoding="utf-8")
    for helper in ("parallelize", "describe"):
        (tmp_path / f"fit_{helper}.py").write_text(textwrap.dedent(AFTER_FORWARD.format(helper=helper)), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK211",), use_cache=False))
    assert [(Path(d.filename).name, d.location.row) for d in result.diagnostics] == [("fit_parallelize.py", 12)]
