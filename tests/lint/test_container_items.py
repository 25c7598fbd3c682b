"""A loop over a container the code builds draws what the container holds: tuples of
tensors unpack into tensors, and an ``nn.ModuleList`` yields modules."""

from __future__ import annotations

from tests.rules.examples import findings
from torchcheck.lint.registry import all_rules


def test_names_unpacked_from_a_comprehension_of_tensor_pairs_are_tensors() -> None:
    code = """
        import torch
        device = torch.device("cuda")
        batches = [(torch.randn(4, 10), torch.randn(4, 5)) for _ in range(3)]
        for x, y in batches:
            x.to(device)
            y.to(device)
    """
    assert findings(code, all_rules()) == [(6, "TCK202"), (7, "TCK202")]


def test_items_of_a_literal_list_of_mixed_kinds_stay_unknown() -> None:
    code = """
        import torch
        device = torch.device("cuda")
        items = [torch.randn(3), "label"]
        for item in items:
            item.to(device)
    """
    assert findings(code, all_rules()) == []


def test_a_module_list_yields_modules() -> None:
    code = """
        import torch.nn as nn
        class Tower(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
            def forward(self, x):
                for block in self.blocks:
                    x = block.forward(x)
                return x
    """
    assert (9, "TCK105") in findings(code, all_rules())


def test_a_list_filled_with_append_holds_what_was_appended_and_its_sum_is_such_a_tensor() -> None:
    code = """
        import torch
        def validate(net, loader, criterion):
            val_loss = 0
            net.eval()
            for images, targets in loader:
                outputs = net(images)
                losses = []
                for head in range(3):
                    losses.append(criterion(outputs[head], targets))
                loss = sum(losses)
                val_loss += loss
            return val_loss
    """
    assert (12, "TCK101") in findings(code, all_rules())


def test_a_list_filled_with_numbers_sums_to_no_tensor() -> None:
    code = """
        import torch
        def validate(net, loader, criterion):
            val_loss = 0
            net.eval()
            for images, targets in loader:
                outputs = net(images)
                losses = []
                for head in range(3):
                    losses.append(criterion(outputs[head], targets).item())
                loss = sum(losses)
                val_loss += loss
            return val_loss
    """
    assert [finding for finding in findings(code, all_rules()) if finding[1] == "TCK101"] == []
