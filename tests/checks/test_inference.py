"""assert_inference_contract: eval mode, no reseed, two calls agree, no state changes,
no graph under no_grad/inference_mode, outputs as declared."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_inference_contract

from ._helpers import module_unchanged, process_state_unchanged

X = torch.randn(3, 4)


def failure_of(model: object, *inputs: object, **options: object) -> str:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_inference_contract(model, *(inputs or (X,)), **options)
    return str(failure.value)


class Correct(nn.Module):
    """Dropout, BatchNorm, stochastic depth gated by self.training, a max-norm
    embedding and the old hook-based spectral norm: all quiet in eval mode."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4, max_norm=1.0)
        self.fc = nn.utils.spectral_norm(nn.Linear(4, 4))
        self.drop = nn.Dropout(0.3)
        self.norm = nn.BatchNorm1d(4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.drop(self.fc(x))) + self.embed(torch.arange(x.shape[0])).sum(-1, keepdim=True)
        if self.training:  # drop path
            h = h * torch.empty(h.shape[0], 1).bernoulli_(0.9) / 0.9
        return F.dropout(h, p=0.2, training=self.training)


def test_a_correct_model_keeps_the_contract_and_is_left_untouched() -> None:
    model = Correct()
    with process_state_unchanged(), module_unchanged(model):
        assert_inference_contract(model, X)
    assert_inference_contract(Correct, X)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.dropout(self.fc(x), p=0.5)  # bug: training defaults to True


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(4, 4), Block())

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"logits": self.blocks(x)}


def test_functional_dropout_left_on_in_eval_mode_is_named_with_its_module_and_line() -> None:
    message = failure_of(Net)
    assert message.startswith(
        "assert_inference_contract: two eval-mode calls of Net on the same inputs differ at output['logits']\n"
        "(no reseed between the calls):"
    )
    assert "Cause: random numbers are drawn in eval mode: aten.bernoulli_.float in 'blocks.1' (Block), called from" in message
    assert "test_inference.py:" in message and "return F.dropout(self.fc(x), p=0.5)" in message
    assert message.endswith("F.dropout defaults to training=True; pass training=self.training, or use nn.Dropout.")


class NormsInAList(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norms = [nn.BatchNorm1d(4)]  # bug: .eval() never reaches it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norms[0](self.fc(x))


def test_a_batchnorm_in_a_python_list_is_named_by_the_statistics_it_changes() -> None:
    message = failure_of(NormsInAList)
    assert message.startswith("assert_inference_contract: an eval-mode call of NormsInAList changes state it should only read:")
    assert "buffer 'norms.0.running_mean' (max change " in message
    assert (
        "BatchNorm1d 'norms.0' ran in train mode although model.eval() was called: it is held in self.norms, "
        "a Python list, so .eval() never reached it (use nn.ModuleList)" in message
    )


class StaysTraining(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.5)

    def train(self, mode: bool = True) -> StaysTraining:
        super().train(mode)
        self.drop.train()  # bug: dropout stays on in eval mode
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.fc(x))


def test_a_module_kept_training_by_an_overridden_train_is_named() -> None:
    message = failure_of(StaysTraining)
    assert "aten.bernoulli_.float in 'drop' (Dropout)" in message
    assert "Dropout 'drop' ran in train mode although model.eval() was called: its train() is overridden" in message


class Sampler(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encode = nn.Linear(4, 4)
        self.sample = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = self.encode(x)
        return self.sample(mean + torch.randn_like(mean))  # the reparameterisation, by design


def test_sampling_by_design_is_allowed_by_module_pattern() -> None:
    assert "aten.randn_like in '<root>' (Sampler)" in failure_of(Sampler)
    assert_inference_contract(Sampler, X, allow_random=["<root>"])


class StaticCache(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("cache", torch.zeros(3, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.fc(x)
        self.cache.copy_(out)
        return out


def test_a_buffer_changed_in_place_is_named_unless_allowed() -> None:
    message = failure_of(StaticCache)
    assert "- buffer 'cache' (max change " in message
    assert "name it in allow_mutation=" in message
    assert_inference_contract(StaticCache, X, allow_mutation=["cache"])


class LazyTable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.table: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.table is None:
            self.table = torch.linspace(0, 1, 4)  # built by the first call, in whatever mode it runs
        return self.fc(x) * self.table


def test_a_cache_built_in_inference_mode_that_breaks_training_is_named() -> None:
    message = failure_of(LazyTable)
    assert message.startswith("assert_inference_contract: LazyTable cannot train after a call under torch.inference_mode():")
    assert "Inference tensors cannot be saved for backward" in message
    assert "holds inference tensors, which autograd cannot save: 'table'." in message
    assert_inference_contract(LazyTable, X, inference_mode=False)


class GradInForward(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            return self.fc(x)


def test_a_forward_that_reenables_grad_is_named() -> None:
    message = failure_of(GradInForward)
    assert message.startswith("assert_inference_contract: under torch.no_grad(), outputs of GradInForward carry autograd history: output.")


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.fc(x) * self.calls


def test_state_outside_torch_is_named_as_such() -> None:
    assert "no random numbers were drawn by torch and no parameter, buffer or tensor attribute changed" in failure_of(
        Counter
    )


class Heads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"logits": self.fc(x), "scores": torch.log(-self.fc(x).abs() - 1)}  # NaN whatever the weights


def test_outputs_are_checked_for_declared_device_dtype_and_finiteness() -> None:
    assert "output output['logits'] of Heads is on cpu, not on meta (the declared output_device)" in failure_of(
        Heads, output_device="meta"
    )
    dtype = failure_of(Heads, output_dtype={"logits": torch.float64, "*": torch.float32})
    assert dtype == "assert_inference_contract: output output['logits'] of Heads is torch.float32, declared torch.float64."
    assert "output output['scores'] of Heads holds " in failure_of(Heads)


def test_gradients_left_by_training_are_not_read_as_a_change() -> None:
    model = Correct()
    model(X).sum().backward()
    assert_inference_contract(model, X)
