"""A save helper of another file (``save_model(args, model)`` in ``model.py``) runs on every
rank when a distributed script of the project calls it outside a rank check; one the script
only calls under a rank check, or that no distributed script calls, is not reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

HELPER = """
import torch

def save_model(args, model):
    torch.save(model.state_dict(), f"{args.out}/checkpoint.tar")
"""

SCRIPT = """
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from helpers import save_model

def main(gpu, args, net, train):
    dist.init_process_group("nccl", rank=args.nr * args.gpus + gpu, world_size=args.world_size)
    model = DistributedDataParallel(net.cuda(gpu), device_ids=[gpu])
    for epoch in range(args.epochs):
        train(model)
        if args.nr == 0 and epoch % 10 == 0:
            save_model(args, model)
{last}
"""


def _findings(root: Path, last: str, distributed: bool = True) -> list[tuple[str, int, str]]:
    (root / "helpers.py").write_text(textwrap.dedent(HELPER), encoding="utf-8")
    script = textwrap.dedent(SCRIPT).format(last=last)
    if not distributed:
        script = script.replace('dist.init_process_group("nccl", rank=args.nr * args.gpus + gpu, world_size=args.world_size)', "pass")
        script = script.replace("DistributedDataParallel(net.cuda(gpu), device_ids=[gpu])", "net.cuda(gpu)")
    (root / "main.py").write_text(script, encoding="utf-8")
    result = lint(LintOptions(paths=(root,), select=("TCK208",), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row, d.code) for d in result.diagnostics)


def test_a_helper_a_distributed_script_calls_outside_a_rank_check_is_reported_at_its_save(tmp_path: Path) -> None:
    assert _findings(tmp_path, "    save_model(args, model)") == [("helpers.py", 5, "TCK208")]


def test_a_helper_called_only_under_rank_checks_is_not_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path, "    if args.nr == 0:\n        save_model(args, model)") == []


def test_a_helper_only_a_single_process_script_calls_is_not_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path, "    save_model(args, model)", distributed=False) == []
