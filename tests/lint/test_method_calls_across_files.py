"""A method that saves, of a class that sets up DDP, which its own file never calls: the
project's distributed scripts decide whether it runs on every rank (TCK208)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

MODEL = """
import torch
from torch.nn.parallel import DistributedDataParallel

class Learner(object):
    def __init__(self, net, local_rank):
        self.net = net
        if local_rank != -1:
            self.net = DistributedDataParallel(net, device_ids=[local_rank])

    def update(self, batch):
        self.net(batch).sum().backward()

    def save(self, filename):
        torch.save(self.net.state_dict(), filename)
"""


def _lint(tmp_path: Path, train: str) -> list[tuple[str, int]]:
    package = tmp_path / "project"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "learner.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    (package / "train.py").write_text(textwrap.dedent(train), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK208",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics)


def _train(call: str) -> str:
    return f"""
    import torch
    import torch.distributed as dist
    from project.learner import Learner

    def main(args, loader):
        dist.init_process_group("nccl")
        learner = Learner(torch.nn.Linear(2, 2).cuda(), args.local_rank)
        for batch in loader:
            learner.update(batch)
{textwrap.indent(call, " " * 8)}
    """


def test_a_method_every_script_calls_under_a_rank_check_runs_on_one_rank(tmp_path: Path) -> None:
    call = 'if args.local_rank in [-1, 0]:\n    learner.save("model.pt")'
    assert _lint(tmp_path, _train(call)) == []


def test_a_method_a_script_calls_on_every_rank_is_reported_where_it_saves(tmp_path: Path) -> None:
    assert _lint(tmp_path, _train('learner.save("model.pt")')) == [("learner.py", 15)]


def test_one_unguarded_call_among_guarded_ones_is_enough(tmp_path: Path) -> None:
    call = 'if dist.get_rank() == 0:\n    learner.save("best.pt")\nlearner.save("last.pt")'
    assert _lint(tmp_path, _train(call)) == [("learner.py", 15)]


def test_a_method_no_script_calls_is_still_taken_to_run_on_every_rank(tmp_path: Path) -> None:
    assert _lint(tmp_path, _train("pass")) == [("learner.py", 15)]
