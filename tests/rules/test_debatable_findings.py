"""Findings a reviewer would argue with (issue 23), each decided on what PyTorch does:
TCK201 stays silent on tensors made from host data, TCK204 on `DataParallel` that only
serves inference, and TCK606 names the real cost for a tensor `__init__` already placed."""

from __future__ import annotations

import textwrap

from tests.rules.examples import as_one_file_project
from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code


def _findings(source: str, code: str) -> list[tuple[int, str]]:
    result = lint_source(textwrap.dedent(source).encode(), "example.py", rules_by_code([code]))
    return [(diagnostic.location.row, diagnostic.message) for diagnostic in as_one_file_project(result, "example.py")]


def test_tensor_from_host_data_moved_to_the_device_is_not_reported_but_a_computed_factory_is() -> None:
    source = """
    import torch
    labels = torch.tensor([0, 1, 1]).to(device)
    weights = torch.as_tensor(class_weights).cuda()
    mask = torch.ones(16, 16).to(device)
    """
    assert [row for row, _ in _findings(source, "TCK201")] == [5]


INFERENCE_SCRIPT = """
import torch
from torch import nn

def predict(model, loader):
    model = nn.DataParallel(model).cuda()
    model.eval()
    with torch.no_grad():
        return [model(x) for x in loader]
"""


def test_data_parallel_that_only_serves_inference_is_not_reported() -> None:
    assert _findings(INFERENCE_SCRIPT, "TCK204") == []


def test_data_parallel_kept_local_to_a_function_that_only_evaluates_is_not_reported_in_a_file_that_trains() -> None:
    training = INFERENCE_SCRIPT + "\ndef step(model, x, y):\n    criterion(model(x), y).backward()\n"
    assert _findings(training, "TCK204") == []


def test_data_parallel_handed_on_from_a_function_that_puts_it_in_eval_mode_serves_inference() -> None:
    handed = INFERENCE_SCRIPT.replace("return [model(x) for x in loader]", "report(model)\n        return [model(x) for x in loader]")
    training = handed + "\ndef step(model, x, y):\n    criterion(model(x), y).backward()\n"
    assert _findings(training, "TCK204") == []


def test_data_parallel_handed_on_from_a_function_that_neither_evaluates_nor_disables_gradients_is_reported_in_a_file_that_trains() -> None:
    handed = INFERENCE_SCRIPT.replace("model.eval()", "report(model)").replace("with torch.no_grad():", "if True:")
    training = handed + "\ndef step(model, x, y):\n    criterion(model(x), y).backward()\n"
    assert [row for row, _ in _findings(training, "TCK204")] == [6]


def test_data_parallel_evaluated_under_another_name_is_reported() -> None:
    source = INFERENCE_SCRIPT.replace("model.eval()", "teacher.eval()").replace("with torch.no_grad():", "if True:")
    assert [row for row, _ in _findings(source, "TCK204")] == [6]


PLACED = """
import torch
from torch import nn
class Encoding(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.table = torch.zeros(n, 8, device=device)
        self.anchors = torch.tensor([[10, 13], [16, 30]]).float().to(device)
        self.grid = torch.arange(n).cuda()
        self.kept_on_host = torch.zeros(n, device="cpu")
        self.halved = torch.ones(n).to(torch.float16)
    def forward(self, x):
        return x + self.table + self.anchors + self.grid + self.kept_on_host + self.halved
"""


def test_tensor_placed_by_init_is_reported_for_the_moves_and_replicas_that_leave_it_behind() -> None:
    messages = dict(_findings(PLACED, "TCK606"))
    for row in (7, 8, 9):
        assert "put on a device in `__init__`" in messages[row]
        assert "`DataParallel` replicas leave it behind" in messages[row]
    for row in (10, 11):
        assert messages[row].startswith("Tensor stored as a plain module attribute: not moved by `.to()`")
