from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import Invalid, Rule, Valid

_DATA_PARALLEL = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel.DataParallel"}
)


class DataParallel(Rule):
    """
    ## What it does
    Checks for models wrapped in `nn.DataParallel(...)`.

    ## Why is this bad?
    `DataParallel` runs every replica in one Python process: the GIL serialises the
    replicas, the model is copied to every GPU on every forward pass, and outputs and
    gradients are gathered on the first GPU, which then runs out of memory before the
    others. `DistributedDataParallel` with one process per GPU is faster even on a single
    machine, and the PyTorch documentation recommends it instead.

    This is advice about how to train, so it is not given inside tests: a test that wraps
    a model in `DataParallel` checks how code handles such a model (the `module.` prefix
    of its state dict, unwrapping it) and is right to use it. Tests are
    `unittest.TestCase` subclasses and, in a file pytest collects (`test_*.py`,
    `*_test.py`, `conftest.py`) or one that imports pytest, functions named `test*`,
    fixtures and `Test*` classes.

    ## Example
    ```python
    from torch import nn

    model = nn.DataParallel(model).cuda()
    ```

    Use instead:
    ```python
    # launched with: torchrun --nproc_per_node=NUM_GPUS train.py
    import os

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])
    ```

    ## Fix safety
    There is no automatic fix: moving to `DistributedDataParallel` changes how the script
    is launched, how data is sharded (`DistributedSampler`) and who logs and saves.

    ## References
    - [`torch.nn.DataParallel`](https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html)
    - [CUDA semantics: use DistributedDataParallel instead of DataParallel](https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead)
    - [Getting started with DistributedDataParallel](https://pytorch.org/tutorials/intermediate/ddp_tutorial.html)
    """

    code = "TCK204"
    name = "data-parallel"
    message = "`nn.DataParallel` is single-process and slower than `DistributedDataParallel`"
    required_text = ("DataParallel",)
    applies_in_tests = False

    VALID = (
        Valid(
            """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[local_rank])
if isinstance(model, (nn.DataParallel, DDP)):
    model = model.module
"""
        ),
        Valid(
            """
import torch.nn as nn
class PatchedDataParallel(nn.DataParallel):
    def gather(self, outputs, output_device):
        return outputs
"""
        ),
        Valid(
            """
from my_project.parallel import DataParallel
model = DataParallel(model)
"""
        ),
        Valid(
            """
import unittest
import pytest
import torch
from torch import nn

class CheckpointTest(unittest.TestCase):
    def build(self, wrapped):
        model = nn.Linear(2, 2)
        return nn.DataParallel(model) if wrapped else model

    def test_loads_state_dict_of_wrapped_model(self):
        self.assertIn("module.weight", self.build(True).state_dict())

@pytest.fixture
def wrapped_model():
    return torch.nn.DataParallel(nn.Linear(2, 2))

def test_unwraps_data_parallel(wrapped_model):
    model = nn.parallel.DataParallel(nn.Linear(2, 2))
    assert unwrap(model) is model.module
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
model = nn.DataParallel(model).cuda()  # TCK204
"""
        ),
        Invalid(
            """
import torch
from torch.nn.parallel import DataParallel as DP

class Trainer:
    def __init__(self, model, gpus):
        if len(gpus) > 1:
            self.model = DP(model, device_ids=gpus)  # TCK204
        else:
            self.model = model.to(gpus[0])
"""
        ),
        Invalid(
            """
import torch
net = torch.nn.DataParallel(  # TCK204
    net,
    device_ids=[0, 1],
)
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.call_name(node) in _DATA_PARALLEL:
            self.report(node)
