"""TCK213, TCK215 and TCK405 against PyTorch itself: the value or state each rule reports is
really wrong (a sharded gradient's norm read as this rank's shard norm; every rank's resume on
cuda:0; a compiled wrapper's keys in an uncompiled model), and the correction the rule asks
for lints clean and works.

Each snippet is linted exactly as it is run.
"""

from __future__ import annotations

import os

import pytest

from tests.rules.examples import codes_reported

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")


def _define(source: str, name: str):
    namespace: dict[str, object] = {}
    exec(compile(source, "example.py", "exec"), namespace)  # noqa: S102 - test snippets
    return namespace[name]


# ---------------------------------------------------------------- TCK213 sharded-grad-norm-read-locally
_LAYER_NORMS = """
import torch
from torch.distributed.fsdp import fully_shard

def layer_grad_norms(model, batch):
    fully_shard(model)
    model(batch).sum().backward()
    return {{name: parameter.grad.norm(){read} for name, parameter in model.named_parameters()}}
"""
SHARD_NORMS = _LAYER_NORMS.format(read=".item()")
FULL_NORMS = _LAYER_NORMS.format(read=".full_tensor().item()")
_TOTAL_NORM = """
import torch
from torch.distributed.fsdp import fully_shard

def total_grad_norm(model, batch):
    fully_shard(model)
    model(batch).sum().backward()
    return torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item()
"""


def _mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))


def test_a_sharded_gradient_norm_read_with_item_is_reported_and_after_full_tensor_is_not() -> None:
    assert codes_reported(SHARD_NORMS, "TCK213") == ["TCK213"]
    assert codes_reported(FULL_NORMS, "TCK213") == []
    assert codes_reported(_TOTAL_NORM, "TCK213") == []  # reduced by clip_grad_norm_ itself in this PyTorch


@pytest.mark.distributed(world_size=2)
def test_item_reads_each_ranks_shard_norm_and_full_tensor_the_whole_gradients_norm(rank: int) -> None:
    batch = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    reference = _mlp()
    reference(batch).sum().backward()
    expected = {name: parameter.grad.norm().item() for name, parameter in reference.named_parameters()}
    local = _define(SHARD_NORMS, "layer_grad_norms")(_mlp(), batch)
    full = _define(FULL_NORMS, "layer_grad_norms")(_mlp(), batch)
    everyone: list[dict[str, float]] = [{} for _ in range(dist.get_world_size())]
    dist.all_gather_object(everyone, local)
    assert everyone[0] != everyone[1]  # each rank logs its own shard's norm ...
    for name, norm in expected.items():  # ... the pieces of the whole norm, none of them the whole
        assert (everyone[0][name] ** 2 + everyone[1][name] ** 2) ** 0.5 == pytest.approx(norm, rel=1e-5)
        assert local[name] < norm
    assert full == pytest.approx(expected, rel=1e-5)


@pytest.mark.distributed(world_size=2)
def test_the_total_norm_clip_grad_norm_returns_is_already_reduced(rank: int) -> None:
    batch = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    reference = _mlp()
    reference(batch).sum().backward()
    expected = torch.nn.utils.clip_grad_norm_(reference.parameters(), 1e9).item()
    assert _define(_TOTAL_NORM, "total_grad_norm")(_mlp(), batch) == pytest.approx(expected, rel=1e-5)


# ---------------------------------------------------------------- TCK215 load-without-map-location-per-rank
_RESUME = """
import os

import torch
import torch.distributed as dist

def resume_or_save(model, directory):
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    model.to(torch.device("cuda", local_rank) if torch.cuda.is_available() else "cpu")
    path = os.path.join(directory, "checkpoint.pt")
    if os.path.exists(path):
        model.load_state_dict(torch.load(path{map_location}, weights_only=True))
    elif dist.get_rank() == 0:
        torch.save(model.state_dict(), path)
    dist.barrier()
"""
LOAD_AS_SAVED = _RESUME.format(map_location="")
LOAD_TO_CPU = _RESUME.format(map_location=', map_location="cpu"')


def test_a_resume_every_rank_runs_without_map_location_is_reported_and_one_to_the_cpu_is_not() -> None:
    assert codes_reported(LOAD_AS_SAVED, "TCK215") == ["TCK215"]
    assert codes_reported(LOAD_TO_CPU, "TCK215") == []


def _devices_each_rank_restores_to(source: str, directory: str, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Rank 0 saves the model as a GPU run writes it (its storages tagged ``cuda:0``), then
    every rank resumes; the device each rank's ``torch.load`` restores the storages to."""
    resume_or_save = _define(source, "resume_or_save")
    os.makedirs(directory, exist_ok=True)
    if dist.get_rank() == 0:  # the first run: nothing to resume, rank 0 saves
        with monkeypatch.context() as patched:
            patched.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
            resume_or_save(torch.nn.Linear(4, 2), directory)
    else:
        dist.barrier()
    requested: list[str] = []

    def restore(storage, location):  # where the storage would go; kept on the CPU here
        requested.append(location)
        return storage

    with monkeypatch.context() as patched:
        patched.setattr(torch.serialization, "default_restore_location", restore)
        resume_or_save(torch.nn.Linear(4, 2), directory)
    everyone: list[list[str]] = [[] for _ in range(dist.get_world_size())]
    dist.all_gather_object(everyone, sorted(set(requested)))
    return everyone


@pytest.mark.distributed(world_size=2)
def test_every_rank_restores_the_checkpoint_onto_cuda0_and_with_map_location_onto_the_cpu(
    rank: int, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = [str(tmp_path)]
    dist.broadcast_object_list(shared, src=0)
    as_saved = _devices_each_rank_restores_to(LOAD_AS_SAVED, f"{shared[0]}/as_saved", monkeypatch)
    to_cpu = _devices_each_rank_restores_to(LOAD_TO_CPU, f"{shared[0]}/to_cpu", monkeypatch)
    assert as_saved == [["cuda:0"], ["cuda:0"]]
    assert to_cpu == [["cpu"], ["cpu"]]


def test_without_map_location_the_checkpoint_goes_to_the_gpu_it_was_saved_from(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "checkpoint.pt"
    with monkeypatch.context() as patched:
        patched.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
        torch.save(torch.nn.Linear(4, 2).state_dict(), path)
    with monkeypatch.context() as patched:  # a machine without CUDA, even where there is one
        patched.setattr(torch.cuda, "is_available", lambda: False)
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
            torch.load(path, weights_only=True)
    assert set(torch.load(path, map_location="cpu", weights_only=True)) == {"weight", "bias"}


# ---------------------------------------------------------------- TCK405 compiled-state-dict-prefixed
_SAVE_THEN_EXPORT = """
import torch

def save_then_export(path):
    model = torch.nn.Linear(4, 2)
    {compile}
    torch.save(model.state_dict(), path)
    net = torch.nn.Linear(4, 2)
    net.load_state_dict(torch.load(path, weights_only=True), strict=False)
    return model, net
"""
WRAPPER_SAVED = _SAVE_THEN_EXPORT.format(compile='model = torch.compile(model, backend="eager")')
COMPILED_IN_PLACE = _SAVE_THEN_EXPORT.format(compile='model.compile(backend="eager")')

_WARM_START = """
import torch

def warm_start(path):
    torch.save(torch.nn.Linear(4, 2).state_dict(), path)
    {target} = torch.compile(torch.nn.Linear(4, 2), backend="eager")
    {target}.load_state_dict(torch.load(path, weights_only=True))
    return {target}
"""
INTO_WRAPPER = _WARM_START.format(target="compiled")


def test_the_wrapper_state_saved_for_an_uncompiled_model_is_reported_and_the_in_place_compile_is_not() -> None:
    assert codes_reported(WRAPPER_SAVED, "TCK405") == ["TCK405"]
    assert codes_reported(COMPILED_IN_PLACE, "TCK405") == []
    assert codes_reported(INTO_WRAPPER, "TCK405") == ["TCK405"]


def test_the_compiled_wrapper_state_loads_nothing_into_the_plain_model_and_the_in_place_compile_loads_everything(tmp_path) -> None:
    torch.manual_seed(0)
    model, net = _define(WRAPPER_SAVED, "save_then_export")(tmp_path / "wrapper.pt")
    saved = torch.load(tmp_path / "wrapper.pt", weights_only=True)
    assert set(saved) == {"_orig_mod.weight", "_orig_mod.bias"}
    assert not torch.equal(net.weight, model._orig_mod.weight)  # strict=False: still its random initial weights
    with pytest.raises(RuntimeError, match=r"Missing key\(s\) in state_dict"):
        torch.nn.Linear(4, 2).load_state_dict(saved)
    model, net = _define(COMPILED_IN_PLACE, "save_then_export")(tmp_path / "in_place.pt")
    assert set(torch.load(tmp_path / "in_place.pt", weights_only=True)) == {"weight", "bias"}
    assert torch.equal(net.weight, model.weight) and torch.equal(net.bias, model.bias)


def test_a_plain_state_dict_does_not_load_into_the_compiled_wrapper(tmp_path) -> None:
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "_orig_mod\.weight"'):
        _define(INTO_WRAPPER, "warm_start")(tmp_path / "plain.pt")
