from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_checkpoint_roundtrip, assert_resume_equivalent
from torchcheck.checks.checkpoint import load_checkpoint, load_rng_state_dict, save_checkpoint
from torchcheck.checks.state import preserved_state

from ._helpers import process_state_unchanged

# ---------------------------------------------------------------- roundtrip


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.register_buffer("scale", torch.rand(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.scale


class PlainAttribute(Scaled):
    def __init__(self) -> None:
        super().__init__()
        del self.scale
        self.scale = torch.rand(3)  # bug: a plain attribute is not saved


class NonPersistent(Scaled):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.rand(3), persistent=False)  # bug: not saved, random


def drop_bias(module: nn.Module, state: dict[str, Any], prefix: str, local_metadata: Any) -> None:
    del state[prefix + "fc.bias"]  # bug: a hook that silently drops a key


class DropsKey(Scaled):
    def __init__(self) -> None:
        super().__init__()
        self._register_state_dict_hook(drop_bias)


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(tokens))


def test_checkpoint_roundtrip_passes_buffers_and_tied_weights(tmp_path: Path) -> None:
    x = torch.randn(2, 4)
    with process_state_unchanged():
        assert_checkpoint_roundtrip(Scaled, x, tmp_path=tmp_path)
        assert_checkpoint_roundtrip(Tied, torch.tensor([[1, 2, 3]]))


def test_checkpoint_roundtrip_takes_a_model_instance_and_leaves_it_unchanged() -> None:
    model = Scaled()
    before = {key: value.clone() for key, value in model.state_dict().items()}
    assert_checkpoint_roundtrip(model, torch.randn(2, 4))
    assert all(torch.equal(model.state_dict()[key], value) for key, value in before.items())
    with pytest.raises(CheckFailed, match='Missing key\\(s\\) in state_dict: "fc.bias"'):
        assert_checkpoint_roundtrip(DropsKey(), torch.ones(2, 4))


def test_checkpoint_roundtrip_names_a_tensor_kept_as_a_plain_attribute() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(PlainAttribute, torch.ones(2, 4))
    message = str(failure.value)
    assert "plain tensor attribute 'scale' of PlainAttribute differs" in message
    assert "Mismatched elements: 3 / 3 (100.0%)" in message
    assert "self.register_buffer(name, tensor)" in message


def test_checkpoint_roundtrip_names_a_random_non_persistent_buffer() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(NonPersistent, torch.ones(2, 4))
    assert "non-persistent buffer 'scale' of NonPersistent differs" in str(failure.value)


def test_checkpoint_roundtrip_names_a_key_dropped_by_a_state_dict_hook() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(DropsKey, torch.ones(2, 4))
    assert 'Missing key(s) in state_dict: "fc.bias"' in str(failure.value)


class RandomTemperature(Scaled):
    def __init__(self) -> None:
        super().__init__()
        self.temperature = float(torch.rand(()))  # bug: a plain float, not saved

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) / self.temperature


def test_checkpoint_roundtrip_names_a_plain_attribute_the_outputs_depend_on() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(RandomTemperature, torch.ones(2, 4))
    message = str(failure.value)
    assert "eval-mode outputs of RandomTemperature differ at output:" in message
    assert "these plain attributes differ and are not in the state_dict: 'temperature' (" in message


@pytest.mark.parametrize("make_model", ["tiny_llama", "tiny_gpt2"])
def test_checkpoint_roundtrip_passes_tiny_transformers_decoders_with_caches(make_model: str) -> None:
    from . import _tiny_hf

    with process_state_unchanged():
        assert_checkpoint_roundtrip(getattr(_tiny_hf, make_model), _tiny_hf.token_batch())


def test_checkpoint_roundtrip_passes_a_tiny_t5() -> None:
    from ._tiny_hf import tiny_t5, token_batch

    batch = token_batch()
    inputs = {"input_ids": batch["input_ids"], "decoder_input_ids": batch["input_ids"][:, :4]}
    assert_checkpoint_roundtrip(tiny_t5, inputs)


def test_checkpoint_roundtrip_leaves_the_callers_files_in_tmp_path_alone(tmp_path: Path) -> None:
    (tmp_path / "torchcheck_roundtrip.pt").write_text("precious")
    assert_checkpoint_roundtrip(Scaled, torch.randn(2, 4), tmp_path=tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["torchcheck_roundtrip.pt"]
    assert (tmp_path / "torchcheck_roundtrip.pt").read_text() == "precious"


def test_checkpoint_roundtrip_without_tmp_path_writes_nothing_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert_checkpoint_roundtrip(Scaled, torch.randn(2, 4))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["a file", "missing"])
def test_checkpoint_roundtrip_names_a_tmp_path_it_cannot_write_in(tmp_path: Path, kind: str) -> None:
    where = tmp_path / "checkpoints"
    if kind == "a file":
        where.write_text("not a directory")
    with pytest.raises(ValueError) as error:
        assert_checkpoint_roundtrip(Scaled, torch.randn(2, 4), tmp_path=where)
    message = str(error.value)
    assert message.startswith(f"assert_checkpoint_roundtrip: cannot write its checkpoint in tmp_path={str(where)!r}")
    assert "Pass a writable directory as tmp_path" in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes in a read-only directory")
def test_checkpoint_roundtrip_names_a_read_only_tmp_path(tmp_path: Path) -> None:
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        with pytest.raises(ValueError, match="cannot write its checkpoint in tmp_path=.*read-only.*PermissionError"):
            assert_checkpoint_roundtrip(Scaled, torch.randn(2, 4), tmp_path=read_only)
    finally:
        read_only.chmod(0o755)


# ------------------------------------------------------------------- resume


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


def make_optimizer(model: nn.Module) -> tuple[torch.optim.Optimizer, Any]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    x, y = batch
    model.train()
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def model_only_save(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    torch.save({"model": model.state_dict()}, path)  # bug: no optimizer, scheduler or RNG


def model_only_load(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    model.load_state_dict(torch.load(path, weights_only=True)["model"])


def no_rng_save(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any = None, **_: Any) -> None:
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, path)


def no_rng_load(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any = None, **_: Any) -> None:
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])  # bug: dropout RNG not restored


def batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(8, 4, generator=generator), torch.randn(8, 1, generator=generator)) for _ in range(6)]


def test_resume_equivalent_passes_with_the_default_checkpoint(tmp_path: Path) -> None:
    data = batches()
    with process_state_unchanged():
        assert_resume_equivalent(Regressor, make_optimizer, train_step, data, tmp_path=tmp_path)


def test_default_checkpoint_loads_with_weights_only(tmp_path: Path) -> None:
    model = Regressor()
    optimizer, scheduler = make_optimizer(model)
    train_step(model, optimizer, batches()[0])
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
    state = torch.load(tmp_path / "c.pt", weights_only=True)
    assert set(state) == {"model", "optimizer", "scheduler", "scaler", "rng"}
    assert set(state["rng"]) >= {"python", "numpy", "torch", "cuda"}


def test_default_checkpoint_restores_every_rng(tmp_path: Path) -> None:
    model = Regressor()
    optimizer, scheduler = make_optimizer(model)
    with preserved_state():
        save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
        expected = (random.random(), float(np.random.rand()), torch.rand(3))
        fresh = Regressor()
        load_checkpoint(tmp_path / "c.pt", fresh, *make_optimizer(fresh))
        actual = (random.random(), float(np.random.rand()), torch.rand(3))
    assert actual[:2] == expected[:2]
    assert torch.equal(actual[2], expected[2])


def resume_failure(*args: Any, **kwargs: Any) -> str:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_resume_equivalent(*args, **kwargs)
    return str(failure.value)


def forgotten(message: str) -> list[str]:
    """The lines that name what the checkpoint did not restore."""
    return [line.strip() for line in message.splitlines() if line.startswith("  - ")]


def test_resume_equivalent_names_the_step_and_the_forgotten_optimizer_state() -> None:
    message = resume_failure(
        Regressor, make_optimizer, train_step, batches(), save_fn=model_only_save, load_fn=model_only_load
    )
    assert "resumed from a checkpoint after step 3 diverges from uninterrupted training at step 4 of 6" in message
    assert "parameter 'fc1.weight'" in message
    assert "Greatest absolute difference:" in message and "(up to 0 allowed)" in message
    lines = forgotten(message)
    assert lines[0] == (
        "- optimizer state: none after loading, while the saved optimizer held 'step', 'exp_avg', 'exp_avg_sq' for "
        "4 parameters (optimizer.state_dict() is not saved or not loaded: Adam moments restart from zero)"
    )
    assert lines[1] == "- optimizer param_groups[0]['lr']: 0.01 after loading, 0.00343 when saved"
    assert lines[2].startswith("- scheduler: last_epoch is 0 after loading, 3 when saved;")
    assert lines[3].startswith("- RNG: not restored for torch CPU, so dropout")


def momentum_sgd(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def load_hyperparameters_only(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    for group, saved in zip(optimizer.param_groups, checkpoint["optimizer"]["param_groups"]):
        group["lr"] = saved["lr"]  # bug: the momentum buffers stay behind
    load_rng_state_dict(checkpoint["rng"])


def test_resume_equivalent_names_momentum_buffers_left_behind() -> None:
    message = resume_failure(Regressor, momentum_sgd, train_step, batches(), load_fn=load_hyperparameters_only)
    assert forgotten(message) == [
        "- optimizer state: none after loading, while the saved optimizer held 'momentum_buffer' for 4 parameters "
        "(optimizer.state_dict() is not saved or not loaded: momentum restarts from zero)"
    ]


def save_optimizer_in_half_precision(
    path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **kwargs: Any
) -> None:
    save_checkpoint(path, model, optimizer, **kwargs)
    checkpoint = torch.load(path, weights_only=True)
    for entry in checkpoint["optimizer"]["state"].values():  # bug: rounds Adam's moments to save disk
        entry.update({key: value.half() for key, value in entry.items() if key.startswith("exp_avg")})
    torch.save(checkpoint, path)


def test_resume_equivalent_names_the_optimizer_field_that_lost_precision() -> None:
    message = resume_failure(Regressor, make_optimizer, train_step, batches(), save_fn=save_optimizer_in_half_precision)
    lines = forgotten(message)
    assert lines[0] == "- optimizer state: 'exp_avg' differs for 4 of 4 parameters, first 'fc1.weight':"
    assert "- optimizer state: 'exp_avg_sq' differs for 4 of 4 parameters, first 'fc1.weight':" in lines
    assert "Greatest relative difference:" in message


def load_then_reset_lr(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **kwargs: Any) -> None:
    load_checkpoint(path, model, optimizer, **kwargs)
    for group in optimizer.param_groups:
        group["lr"] = 1e-2  # bug: re-applies the configured lr over the scheduled one


def test_resume_equivalent_names_a_learning_rate_overwritten_after_loading() -> None:
    message = resume_failure(Regressor, make_optimizer, train_step, batches(), load_fn=load_then_reset_lr)
    assert forgotten(message) == ["- optimizer param_groups[0]['lr']: 0.01 after loading, 0.00343 when saved"]


def inverse_decay(model: nn.Module) -> tuple[torch.optim.Optimizer, Any]:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 1 / (1 + epoch))


def load_without_scheduler(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    load_checkpoint(path, model, optimizer)  # bug: the scheduler is not passed on


def test_resume_equivalent_names_a_forgotten_scheduler() -> None:
    message = resume_failure(Regressor, inverse_decay, train_step, batches(), load_fn=load_without_scheduler)
    lines = forgotten(message)
    assert len(lines) == 1
    assert lines[0].startswith("- scheduler: last_epoch is 0 after loading, 3 when saved;")
    assert "_last_lr is [0.05] after loading, [0.0125] when saved" in lines[0]


def half_precision_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: tuple[torch.Tensor, torch.Tensor]
) -> None:
    x, y = batch
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = F.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


def loud_batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Large enough that float16 gradients overflow at the initial loss scale, so the
    first steps are skipped and the scale backs off to 4096."""
    generator = torch.Generator().manual_seed(1)
    return [(5 * torch.randn(8, 4, generator=generator), 5 * torch.randn(8, 1, generator=generator)) for _ in range(8)]


def fresh_scaler() -> torch.amp.GradScaler:
    return torch.amp.GradScaler("cpu", growth_interval=2)


def load_without_scaler(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    load_checkpoint(path, model, optimizer)  # bug: the scaler restarts at 65536 and overflows again


def test_resume_equivalent_passes_an_amp_run_with_the_default_checkpoint() -> None:
    torch.manual_seed(0)
    with process_state_unchanged():
        assert_resume_equivalent(
            Regressor, momentum_sgd, half_precision_step, loud_batches(), scaler=fresh_scaler
        )


def test_resume_equivalent_names_a_forgotten_grad_scaler() -> None:
    message = resume_failure(
        Regressor, momentum_sgd, half_precision_step, loud_batches(), load_fn=load_without_scaler, scaler=fresh_scaler
    )
    assert forgotten(message) == [
        "- GradScaler: scale is 65536 after loading, 4096 when saved (scaler.state_dict() is not saved or not loaded)"
    ]


def noisy_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple[torch.Tensor, torch.Tensor]) -> None:
    x, y = batch
    model.train()
    optimizer.zero_grad()
    noise = torch.from_numpy(np.random.normal(0.0, 0.1, size=tuple(x.shape))).float()  # numpy augmentation
    F.mse_loss(model(x + noise), y).backward()
    optimizer.step()


def save_torch_rng_only(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "torch_rng": torch.get_rng_state()}
    torch.save(state, path)  # bug: numpy (and python) generators are not saved


def load_torch_rng_only(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["torch_rng"])


def test_resume_equivalent_names_only_the_generator_the_step_draws_from_that_was_not_restored() -> None:
    """python random (and CUDA's generators on a GPU machine) are not restored either,
    but noisy_step never draws from them, so naming them would send the user astray."""
    message = resume_failure(
        Regressor, momentum_sgd, noisy_step, batches(), save_fn=save_torch_rng_only, load_fn=load_torch_rng_only
    )
    assert forgotten(message) == [
        "- RNG: not restored for numpy, so dropout, sampling and augmentation draw other numbers "
        "after resuming (save and load their states, e.g. rng_state_dict())"
    ]


def load_without_model(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **kwargs: Any) -> None:
    fresh = Regressor()
    load_checkpoint(path, fresh, optimizer, **kwargs)  # bug: loads into a model that is thrown away
    del fresh


def test_resume_equivalent_names_a_model_that_was_not_loaded() -> None:
    message = resume_failure(Regressor, momentum_sgd, train_step, batches(), load_fn=load_without_model)
    assert forgotten(message)[0] == (
        "- model: state_dict entry 'fc1.weight' is not the saved one (the model's state_dict is not saved or not loaded):"
    )
    assert "Mismatched elements: 32 / 32 (100.0%)" in message


class WarmedUpRegressor(Regressor):
    """Scales its output up over the first calls; the count is a plain attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            self.calls += 1
        return super().forward(x) * min(1.0, self.calls / 5)


def test_resume_equivalent_names_a_module_attribute_outside_the_state_dict() -> None:
    message = resume_failure(WarmedUpRegressor, momentum_sgd, train_step, batches())
    assert forgotten(message) == [
        "- extra state: model attribute 'calls' is 0 after loading, 3 when saved; plain attributes are not in the "
        "state_dict (use a buffer, or get_extra_state/set_extra_state)"
    ]


def test_resume_equivalent_points_outside_the_checkpoint_when_everything_was_restored() -> None:
    calls = []

    def warmup_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple[torch.Tensor, torch.Tensor]) -> None:
        calls.append(1)  # bug: the warm-up counter lives in the closure, no checkpoint holds it
        for group in optimizer.param_groups:
            group["lr"] = 0.05 * min(1.0, len(calls) / 10)
        train_step(model, optimizer, batch)

    message = resume_failure(Regressor, momentum_sgd, warmup_step, batches())
    assert forgotten(message) == []
    assert "The checkpoint restored the model, optimizer and every RNG exactly, so training depends on extra state " \
        "outside them: attributes of " in message
    assert "warmup_step's closure" in message


def test_resume_equivalent_leaves_nothing_in_tmp_path(tmp_path: Path) -> None:
    assert_resume_equivalent(Regressor, make_optimizer, train_step, batches(), tmp_path=tmp_path)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------ state that exists only after a forward


class HookSpectralNorm(nn.Module):
    """The old hook-based spectral norm: 'weight' is a plain attribute that a forward
    pre-hook recomputes from weight_orig, weight_u and weight_v."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.utils.spectral_norm(nn.Linear(4, 4))
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.tanh(self.fc(x)))


class MaxNormEmbedding(nn.Module):
    """nn.Embedding(max_norm=) renormalises the rows it looks up in place, in eval mode too."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4, max_norm=0.5)
        self.head = nn.Linear(4, 2)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(tokens))


def test_checkpoint_roundtrip_compares_a_hook_recomputed_attribute_after_the_forward() -> None:
    assert_checkpoint_roundtrip(HookSpectralNorm, torch.randn(2, 4))
    assert_checkpoint_roundtrip(HookSpectralNorm)


def test_checkpoint_roundtrip_compares_parameters_as_saved_not_as_a_forward_rescaled_them() -> None:
    assert_checkpoint_roundtrip(MaxNormEmbedding, torch.tensor([[1, 2, 3]]))


def test_resume_equivalent_passes_a_hook_based_spectral_norm() -> None:
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple[torch.Tensor, torch.Tensor]) -> None:
        optimizer.zero_grad()
        F.mse_loss(model(batch[0]), batch[1]).backward()
        optimizer.step()

    assert_resume_equivalent(HookSpectralNorm, momentum_sgd, step, batches())


class LayersInAList(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = [nn.Linear(4, 4), nn.Linear(4, 4)]  # bug: not an nn.ModuleList
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


def test_checkpoint_roundtrip_says_that_parameters_in_a_python_list_are_not_registered() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(LayersInAList, torch.randn(2, 4))
    message = str(failure.value)
    assert "eval-mode outputs of LayersInAList differ at output" in message
    assert (
        "The outputs depend on parameters the state_dict does not hold: 4 parameters (40 elements) are not "
        "registered with LayersInAList: 'layers' (4 in a list)." in message
    )
    assert "use nn.ModuleList" in message
    assert "state outside the model" not in message


# ----------------------------------------- lost state seen without a divergence


def bfloat16_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: tuple[torch.Tensor, torch.Tensor]
) -> None:
    x, y = batch
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = F.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


def test_resume_equivalent_names_a_grad_scaler_not_saved_although_bfloat16_training_never_diverges() -> None:
    message = resume_failure(
        Regressor, momentum_sgd, bfloat16_step, batches(), load_fn=load_without_scaler,
        scaler=lambda: torch.amp.GradScaler("cpu"),
    )
    assert message.startswith(
        "assert_resume_equivalent: the checkpoint saved after step 3 does not restore everything training "
        "depends on. The 3 resumed steps happened to match uninterrupted training"
    )
    assert "- GradScaler: _growth_tracker is 0 after loading, 3 when saved" in message


def test_save_fn_and_load_fn_may_name_the_scaler_as_they_like() -> None:
    assert_resume_equivalent(
        Regressor, momentum_sgd, bfloat16_step, batches(), scaler=lambda: torch.amp.GradScaler("cpu"),
        save_fn=lambda p, m, o, s: save_checkpoint(p, m, o, scaler=s),
        load_fn=lambda p, m, o, s: load_checkpoint(p, m, o, scaler=s),
    )


def test_a_save_fn_that_cannot_take_the_scheduler_is_told_what_is_expected() -> None:
    message = resume_failure(
        Regressor, make_optimizer, train_step, batches(),
        save_fn=lambda path, model, optimizer: save_checkpoint(path, model, optimizer),
    )
    assert message.startswith(
        "assert_resume_equivalent: save_fn cannot take the scheduler: it is called as "
        "save_fn(path, model, optimizer, scheduler, scaler)"
    )
    assert "but its signature is save_fn(path, model, optimizer)." in message
    assert "def save_fn(path, model, optimizer, scheduler=None, scaler=None)" in message


class RecurrentRegressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 8, num_layers=2, dropout=0.5, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.lstm(x)[0][:, -1])


def test_resume_of_an_lstm_with_dropout_is_exact_on_cpu_and_named_on_cuda(torch_device: torch.device) -> None:
    """Found on the first GPU run: cuDNN keeps the random state of an RNN's dropout to
    itself, so no checkpoint restores it; the message named "extra state" vaguely."""
    generator = torch.Generator().manual_seed(1)
    data = [(torch.randn(8, 5, 4, generator=generator).to(torch_device), torch.randn(8, 1).to(torch_device)) for _ in range(4)]
    make = lambda: RecurrentRegressor().to(torch_device)  # noqa: E731
    if torch_device.type == "cpu":
        assert_resume_equivalent(make, make_optimizer, train_step, data)
        return
    message = resume_failure(make, make_optimizer, train_step, data)
    assert "Cause: cuDNN runs the dropout of 'lstm' from a random state of its own" in message
