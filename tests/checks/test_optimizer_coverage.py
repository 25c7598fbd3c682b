from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_optimizer_covers

from ._helpers import process_state_unchanged


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
        self.head = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


class TiedLanguageModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.out = nn.Linear(4, 10, bias=False)
        self.out.weight = self.embed.weight


def failure_message(model: nn.Module, optimizer: torch.optim.Optimizer) -> str:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_optimizer_covers(model, optimizer)
    return str(failure.value)


def test_optimizer_built_from_model_parameters_covers_them() -> None:
    model = Classifier()
    with process_state_unchanged():
        assert_optimizer_covers(model, torch.optim.AdamW(model.parameters(), lr=1e-3))


def test_weight_decay_groups_that_split_the_parameters_cover_them() -> None:
    model = Classifier()
    decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
    optimizer = torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}])
    assert_optimizer_covers(model, optimizer)


def test_tied_weights_count_once() -> None:
    model = TiedLanguageModel()
    assert_optimizer_covers(model, torch.optim.SGD(model.parameters(), lr=0.1))


def test_optimizer_of_a_frozen_backbone_model_covers_the_trainable_head() -> None:
    model = Classifier()
    model.backbone.requires_grad_(False)
    assert_optimizer_covers(model, torch.optim.SGD(model.head.parameters(), lr=0.1))


def test_parameters_left_out_of_every_group_are_named() -> None:
    model = Classifier()
    message = failure_message(model, torch.optim.SGD(model.backbone.parameters(), lr=0.1))
    assert message.startswith("assert_optimizer_covers: SGD does not cover the trainable parameters of Classifier")
    assert "2 of 6 trainable parameters are in no param group (27 elements), so they never change: " \
        "'head.weight', 'head.bias'" in message


def test_a_parameter_in_two_groups_is_named_with_both_places() -> None:
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer.param_groups.append({**optimizer.param_groups[0], "params": [model.head.bias]})
    message = failure_message(model, optimizer)
    assert "1 parameters are in the optimizer more than once: 'head.bias' at " \
        "param_groups[0]['params'][5], param_groups[1]['params'][0]" in message


def test_frozen_parameters_holding_a_stale_gradient_are_named() -> None:
    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.randn(2, 4)).sum().backward()
    model.backbone.requires_grad_(False)  # frozen after a step: the gradients stay and are stepped
    message = failure_message(model, optimizer)
    assert "4 frozen parameters (requires_grad=False) are in the optimizer with a gradient left from " \
        "before they were frozen: 'backbone.0.weight', 'backbone.0.bias', 'backbone.2.weight', 'backbone.2.bias'" in message
    assert "in no param group" not in message


def test_frozen_parameters_without_a_gradient_in_the_optimizer_are_harmless() -> None:
    model = Classifier()
    model.backbone.requires_grad_(False)  # a frozen table in AdamW(model.parameters()): skipped
    assert_optimizer_covers(model, torch.optim.AdamW(model.parameters(), lr=1e-3))


def test_an_optimizer_built_before_a_deepcopy_is_reported_as_holding_a_copy() -> None:
    original = Classifier()
    optimizer = torch.optim.AdamW(original.parameters(), lr=1e-3)
    model = copy.deepcopy(original)  # bug: the optimizer still updates `original`
    message = failure_message(model, optimizer)
    assert "6 of 6 trainable parameters are in no param group" in message
    assert "the optimizer holds 6 parameters that Classifier does not have (139 elements), shaped like this " \
        "model's 'backbone.0.weight', 'backbone.0.bias', 'backbone.2.weight'" in message
    assert "copy.deepcopy(model)" in message


def test_long_lists_of_names_are_shortened() -> None:
    model = nn.Sequential(*(nn.Linear(2, 2) for _ in range(6)))
    message = failure_message(model, torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1))
    assert "'3.bias', and 4 more" in message


class LayersInAList(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = [nn.Linear(4, 4), nn.Linear(4, 4)]  # bug: not an nn.ModuleList
        self.stages = [self.blocks]  # nested lists are searched too
        self.head = nn.Linear(4, 2)
        self.views = [self.head]  # a list of registered modules is fine

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def test_optimizer_covers_names_parameters_kept_in_a_python_list() -> None:
    model = LayersInAList()
    with pytest.raises(CheckFailed) as failure:
        assert_optimizer_covers(model, torch.optim.SGD(model.parameters(), lr=0.1))
    message = str(failure.value)
    assert (
        "4 parameters (40 elements) are not registered with LayersInAList: 'blocks' (4 in a list), "
        "'stages' (4 in a list). A Python list hides them from model.parameters()" in message
    )
    assert "The optimizer holds none of them, so they never change." in message
    assert "'head" not in message


def test_optimizer_covers_accepts_unregistered_parameters_the_optimizer_was_given() -> None:
    model = LayersInAList()
    hidden = [p for block in model.blocks for p in block.parameters()]
    assert_optimizer_covers(model, torch.optim.SGD([*model.parameters(), *hidden], lr=0.1))
