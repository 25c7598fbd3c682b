"""The wave-4 reach of TCK403 and TCK101 against PyTorch itself: a distributed-checkpoint
load with ``StateDictOptions(strict=False)`` whose result is dropped leaves the model's
random weights in place without a word, and a meter that accumulates the backpropagated
loss keeps every iteration's autograd graph alive; the corrections lint clean and behave.

Each snippet is linted exactly as it is run; the test drives it from outside.
"""

from __future__ import annotations

import pytest

from tests.rules.examples import codes_reported, run_snippet

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- TCK403 non-strict-load-unchecked
# A checkpoint saved from a wrapper (`trunk.` prefix) loaded into the bare model.
_DISTRIBUTED_LOAD = """
import torch
import torch.nn as nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

torch.manual_seed(0)
pretrained = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
checkpoint = {{f"trunk.{{key}}": value for key, value in pretrained.state_dict().items()}}
model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
options = StateDictOptions(strict=False)
{load}
"""
LOAD_UNCHECKED = _DISTRIBUTED_LOAD.format(load="set_model_state_dict(model, checkpoint, options=options)")
LOAD_CHECKED = _DISTRIBUTED_LOAD.format(
    load="""missing, unexpected = set_model_state_dict(model, checkpoint, options=options)
if missing or unexpected:
    raise RuntimeError(f"checkpoint mismatch: {missing=} {unexpected=}")"""
)


def test_discarded_non_strict_distributed_load_is_reported_and_keeps_random_weights_silently() -> None:
    assert codes_reported(LOAD_UNCHECKED, "TCK403") == ["TCK403"]
    namespace = run_snippet(LOAD_UNCHECKED)
    model, pretrained = namespace["model"], namespace["pretrained"]
    assert not torch.equal(model[0].weight, pretrained[0].weight)  # nothing was loaded, nothing said


def test_checked_non_strict_distributed_load_is_silent_and_reports_the_missing_keys() -> None:
    assert codes_reported(LOAD_CHECKED, "TCK403") == []
    with pytest.raises(RuntimeError, match=r"missing=\['0.weight'"):
        run_snippet(LOAD_CHECKED)


# ---------------------------------------------------------------- TCK101 loss-kept-with-graph
_METER_LOOP = """
import torch
import torch.nn as nn

class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = AverageMeter()
loss_nodes = []
for step in range(5):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_nodes.append(loss.grad_fn)
    {update}
"""
METER_KEEPS_GRAPH = _METER_LOOP.format(update="losses.update(loss, x.size(0))")
METER_KEEPS_NUMBER = _METER_LOOP.format(update="losses.update(loss.item(), x.size(0))")


def _reachable_nodes(tensor: object) -> set[object]:
    pending, seen = [getattr(tensor, "grad_fn", None)], set()
    while pending:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        pending.extend(next_node for next_node, _ in node.next_functions)
    return seen


def test_meter_accumulating_the_loss_is_reported_and_holds_every_iterations_graph() -> None:
    assert codes_reported(METER_KEEPS_GRAPH, "TCK101") == ["TCK101"]
    namespace = run_snippet(METER_KEEPS_GRAPH)
    kept = _reachable_nodes(namespace["losses"].sum)
    assert all(node in kept for node in namespace["loss_nodes"])  # all five graphs still alive


def test_meter_given_the_number_is_silent_and_holds_no_graph() -> None:
    assert codes_reported(METER_KEEPS_NUMBER, "TCK101") == []
    namespace = run_snippet(METER_KEEPS_NUMBER)
    assert isinstance(namespace["losses"].sum, float)
    assert _reachable_nodes(namespace["losses"].sum) == set()
