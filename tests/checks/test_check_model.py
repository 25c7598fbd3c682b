"""tc.check_model: the battery in one call, for notebooks and scripts."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import torchcheck as tc
import torchcheck.checks.optimizers
from torchcheck.checks.state import capture_global_state

CHEAP = ["forward", "gradients_flow", "batch_independent", "checkpoint_roundtrip", "meta_shapes", "optimizer_covers"]


class TinyNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(8, 16)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(torch.relu(self.hidden(x))))


class MixesSamples(TinyNet):
    """Two planted bugs: a head forward never uses, and a batch mean that mixes samples."""

    def __init__(self) -> None:
        super().__init__()
        self.unused_head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x - x.mean(dim=0))


def square_loss(outputs: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
    return outputs.pow(2).mean()


def test_a_correct_model_passes_every_default_check() -> None:
    model = TinyNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    report = tc.check_model(model, torch.randn(4, 8), square_loss, optimizer)
    statuses = {r.check: r.status for r in report.results}
    assert report.passed
    assert statuses["resume_equivalent"] == statuses["compile_parity"] == statuses["amp_step"] == "passed"
    assert report["devices_agree"].status == "not applicable"  # on cpu: nothing to compare with
    assert report["meta_shapes"].message == "needs a factory (a model instance cannot be built on meta)"


def test_each_failing_check_is_reported_by_name_with_its_message() -> None:
    model = MixesSamples()
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
    with pytest.raises(tc.CheckFailed) as failure:
        tc.check_model(model, torch.randn(4, 8), square_loss, optimizer, checks=CHEAP)
    message = str(failure.value)
    assert message.startswith("check_model: 3 of 6 checks of MixesSamples failed:")
    assert "[gradients_flow] assert_gradients_flow: 2 of " in message and "unused_head.weight" in message
    assert "[batch_independent] assert_batch_independent:" in message
    assert "[optimizer_covers] assert_optimizer_covers:" in message and "'hidden.weight'" in message


def test_without_raising_the_report_is_a_table_of_every_check() -> None:
    model = MixesSamples()
    report = tc.check_model(model, torch.randn(4, 8), checks=["default", "-compile_parity"], raise_on_failure=False)
    rows = {r.check: r for r in report.results}
    assert [r.check for r in report.failed] == ["gradients_flow", "batch_independent"]
    assert rows["optimizer_covers"].status == "not applicable" and rows["optimizer_covers"].message == "no optimizer"
    assert rows["resume_equivalent"].message == "no step, and no loss + optimizer"
    text = str(report).splitlines()
    assert text[0] == "check_model: MixesSamples on cpu"
    assert text[1].split() == ["check", "status", "seconds", "message"]
    assert any(line.startswith("gradients_flow") and "failed" in line and "assert_gradients_flow" in line for line in text)
    assert "<td>batch_independent</td><td>failed</td>" in report._repr_html_()


def test_a_factory_also_gets_meta_shapes() -> None:
    report = tc.check_model(TinyNet, (torch.randn(4, 8),), checks=["forward", "meta_shapes"])
    assert [(r.check, r.status) for r in report.results] == [("forward", "passed"), ("meta_shapes", "passed")]


def test_a_step_function_drives_the_training_checks() -> None:
    calls = []

    def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        optimizer.zero_grad()
        loss = square_loss(model(batch), batch)
        loss.backward()
        optimizer.step()
        return loss.detach()

    model = TinyNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    report = tc.check_model(model, torch.randn(4, 8), optimizer=optimizer, step_fn=train_step, checks=["resume_equivalent", "amp_step"])
    assert report["resume_equivalent"].status == "passed" and calls
    assert report["amp_step"].message.startswith("no loss + optimizer")


def test_everything_it_touched_is_as_before() -> None:
    model = TinyNet().eval()
    model.head.weight.grad = torch.ones_like(model.head.weight)
    model.hidden.bias.requires_grad_(False)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.1)
    square_loss(model(torch.randn(2, 8)), None).backward()
    optimizer.step()  # optimizer state to keep
    parameters = {n: p.detach().clone() for n, p in model.named_parameters()}
    optimizer_state = {k: v.clone() for k, v in optimizer.state[model.head.weight].items()}
    batch = torch.randn(4, 8)
    torch.manual_seed(1234)
    rng, settings = torch.get_rng_state(), capture_global_state()
    with torch.no_grad():
        checks = [*CHEAP, "resume_equivalent"]
        tc.check_model(model, batch, square_loss, optimizer, checks=checks, raise_on_failure=False)
        assert not torch.is_grad_enabled()
    assert torch.equal(torch.get_rng_state(), rng)
    assert capture_global_state() == settings and not torch.are_deterministic_algorithms_enabled()
    assert all(torch.equal(p, parameters[n]) for n, p in model.named_parameters())
    assert not model.training and not model.hidden.bias.requires_grad
    assert all(torch.equal(v, optimizer_state[k]) for k, v in optimizer.state[model.head.weight].items())


def test_a_check_that_breaks_the_promise_is_named_and_undone(monkeypatch: pytest.MonkeyPatch) -> None:
    real = torchcheck.checks.optimizers.assert_optimizer_covers

    def leaks_into_the_model(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
        real(model, optimizer)
        with torch.no_grad():
            model.head.bias.add_(1.0)
        model.train(False)

    monkeypatch.setattr(torchcheck.checks.optimizers, "assert_optimizer_covers", leaks_into_the_model)
    model = TinyNet()
    bias = model.head.bias.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError, match="internal error: check_model left parameter of 'head.bias'.*train/eval mode of '<root>'"):
        tc.check_model(model, torch.randn(4, 8), optimizer=optimizer, checks=["optimizer_covers"])
    assert torch.equal(model.head.bias, bias) and model.training


def test_opt_in_checks_run_when_named_with_the_callers_param_groups_inside_ddp() -> None:
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(
        [{"params": model[0].parameters(), "lr": 0.05}, {"params": model[2].parameters()}], lr=0.1
    )
    report = tc.check_model(model, torch.randn(4, 8), square_loss, optimizer, checks=["gradcheck", "data_parallel_equivalent"])
    assert [(r.check, r.status) for r in report.results] == [("data_parallel_equivalent", "passed"), ("gradcheck", "passed")]


def test_an_unknown_check_name_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"check_model\(checks=...\): unknown check 'gradient_flow' \(checks: forward, "):
        tc.check_model(TinyNet(), torch.randn(4, 8), checks=["gradient_flow"])
