from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_meta_load, assert_meta_shapes, meta_shapes

from ._helpers import process_state_unchanged
from ._loading import init_non_persistent_buffers
from ._models import LLAMA_7B, TINY, Transformer

TOKENS = torch.zeros(2, 8, dtype=torch.long)


def test_meta_shapes_returns_the_output_size() -> None:
    with process_state_unchanged():
        assert meta_shapes(lambda: Transformer(TINY), TOKENS) == torch.Size([2, 8, 50])


def test_meta_shapes_accepts_shape_tuples_and_nested_outputs() -> None:
    class TwoHeads(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor) -> dict[str, Any]:
            return {"logits": self.fc(x), "pair": (x, x.sum())}

    shapes = meta_shapes(TwoHeads, (5, 4))
    assert shapes == {"logits": torch.Size([5, 3]), "pair": (torch.Size([5, 4]), torch.Size([]))}


def test_meta_shapes_checks_a_7b_transformer_in_seconds_without_memory() -> None:
    rss_before_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    shape = meta_shapes(lambda: Transformer(LLAMA_7B), torch.zeros(1, 2048, dtype=torch.long))
    elapsed = time.perf_counter() - start
    rss_growth_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before_mib
    assert shape == torch.Size([1, 2048, 32000])
    assert elapsed < 20
    assert rss_growth_mib < 500  # real fp32 weights alone would be ~26,000 MiB


def test_meta_shapes_names_the_module_path_of_a_deep_shape_bug() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_meta_shapes(lambda: Transformer(LLAMA_7B, bug_in_block=3), torch.zeros(2, 2048, dtype=torch.long))
    message = str(failure.value)
    assert "forward of Transformer on meta failed in module 'blocks.3.attn' (Attention)" in message
    assert "shape '[2, 2048, 32, 132]' is invalid" in message
    assert "module inputs: (Tensor[2, 2048, 4096] float32 on meta)" in message
    assert "call path: <root> (Transformer) > blocks.3 (Block) > blocks.3.attn (Attention)" in message


def test_meta_shapes_finds_a_tensor_created_on_a_hard_coded_device() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_shapes(lambda: Transformer(TINY, hard_coded_positions=True), TOKENS)
    message = str(failure.value)
    assert "failed in module '<root>' (Transformer)" in message
    assert "Tensor on device cpu is not on the expected device meta" in message
    assert "Cause: a tensor on cpu meets the model's meta tensors in `aten.add.Tensor`." in message
    assert "It was created by aten.arange in module '<root>' (Transformer), at " in message
    assert "_models.py:95 in forward: `x = x + torch.arange(tokens.shape[1], device=\"cpu\"" in message


def test_assert_meta_shapes_compares_with_the_expected_shape() -> None:
    assert_meta_shapes(lambda: Transformer(TINY), TOKENS, expected=(2, 8, 50))
    with pytest.raises(CheckFailed) as failure:
        assert_meta_shapes(lambda: Transformer(TINY), TOKENS, expected=(2, 8, 64))
    assert str(failure.value) == "assert_meta_shapes: output shape of Transformer at output is (2, 8, 50), expected (2, 8, 64)."


def test_assert_meta_shapes_runs_a_real_forward_on_a_device() -> None:
    with process_state_unchanged():
        assert_meta_shapes(lambda: Transformer(TINY), TOKENS, expected=(2, 8, 50), device="cpu")


# -------------------------------------------------------------------- meta load


class Rotary(nn.Module):
    """A tied LM with a non-persistent buffer computed in __init__."""

    def __init__(self, retie: bool = True, rebuild_buffer: bool = True) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("inv_freq", self._inv_freq(), persistent=False)
        if retie or rebuild_buffer:
            self.register_load_state_dict_post_hook(self._after_load)
        self.retie, self.rebuild_buffer = retie, rebuild_buffer

    @staticmethod
    def _inv_freq() -> torch.Tensor:
        return 1.0 / (10000 ** (torch.arange(0, 4, dtype=torch.float32) / 4))

    def _after_load(self, module: nn.Module, incompatible: Any) -> None:
        if self.retie:
            self.head.weight = self.embed.weight
        if self.rebuild_buffer and self.inv_freq.is_meta:
            self.inv_freq = self._inv_freq()

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(tokens) * self.inv_freq)


class CopyingLoad(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        with torch.no_grad():
            self.scale.copy_(state_dict[prefix + "scale"])  # bug: ignores assign=True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


def saved(tmp_path: Path, model: nn.Module) -> Path:
    path = tmp_path / "model.pt"
    torch.save(model.state_dict(), path)
    return path


def test_meta_load_passes_a_model_that_reties_and_rebuilds_after_loading(tmp_path: Path) -> None:
    path = saved(tmp_path, Rotary())
    with process_state_unchanged():
        assert_meta_load(Rotary, path, torch.tensor([[1, 2, 3]]))


def test_meta_load_names_a_non_persistent_buffer_left_on_meta(tmp_path: Path) -> None:
    path = saved(tmp_path, Rotary())
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(lambda: Rotary(rebuild_buffer=False), path, torch.tensor([[1, 2]]))
    assert "still on the meta device" in str(failure.value)
    assert "  buffer inv_freq" in str(failure.value)


def test_meta_load_names_tied_weights_that_come_apart(tmp_path: Path) -> None:
    path = saved(tmp_path, Rotary())
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(lambda: Rotary(retie=False), path)
    assert "tied weights of Rotary are separate tensors" in str(failure.value)
    assert "embed.weight, head.weight" in str(failure.value)


def test_meta_load_names_a_parameter_a_custom_load_left_on_meta() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(CopyingLoad, {"scale": torch.full((4,), 2.0)}, torch.ones(1, 4))
    assert "  parameter scale" in str(failure.value)


def test_meta_load_names_unexpected_keys() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(lambda: nn.Linear(2, 2), {"weight": torch.ones(2, 2), "bias": torch.ones(2), "extra": torch.ones(1)})
    assert "unexpected keys: extra" in str(failure.value)


# ------------------------------------------------- instances, dicts, values


class KeywordHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, features: torch.Tensor, scale: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        logits = self.fc(features)
        return {"logits": logits if scale is None else logits * scale, "hidden": features}


class ReadsAValue(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps = int(x.abs().max())  # needs a value: impossible on meta
        return self.inner(x) * steps


class Wrapper(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = ReadsAValue()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(x)


def test_meta_shapes_accepts_a_model_instance_without_touching_it() -> None:
    model = Transformer(TINY)
    before = model.head.weight.clone()
    assert meta_shapes(model, TOKENS) == torch.Size([2, 8, 50])
    assert torch.equal(model.head.weight, before) and not model.head.weight.is_meta


def test_a_single_dict_input_is_passed_as_keywords_and_expected_may_name_some_outputs() -> None:
    inputs = {"features": (5, 4), "scale": torch.ones(1)}
    assert meta_shapes(KeywordHeads, inputs) == {"logits": torch.Size([5, 3]), "hidden": torch.Size([5, 4])}
    assert_meta_shapes(KeywordHeads, inputs, expected={"logits": (5, 3)})
    with pytest.raises(CheckFailed) as failure:
        assert_meta_shapes(KeywordHeads, inputs, expected={"probabilities": (5, 3)})
    assert "at output['probabilities'] is missing (outputs: hidden, logits)" in str(failure.value)


def test_a_data_dependent_operation_is_named_with_its_module_and_full_error() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        meta_shapes(Wrapper, (2, 4))
    message = str(failure.value)
    assert message.startswith(
        "meta_shapes: data-dependent operation `Tensor.item()` (also behind bool(), int(), float() and "
        "`if tensor:`) in module 'block' (ReadsAValue) cannot run on the meta device"
    )
    assert "This is not a bug in Wrapper." in message
    assert "  RuntimeError: Tensor.item() cannot be called on meta tensors" in message
    assert "call path: <root> (Wrapper) > block (ReadsAValue)" in message
    assert "steps = int(x.abs().max())" in message
    assert "hard-coded device" not in message


def test_with_a_device_a_data_dependent_model_is_shape_checked_there_with_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match="expected= was checked against the shapes of the forward on cpu"):
        assert_meta_shapes(Wrapper, (2, 4), expected=(2, 4), device="cpu")
    with pytest.warns(RuntimeWarning), pytest.raises(CheckFailed, match="is \\(2, 4\\), expected \\(2, 5\\)"):
        assert_meta_shapes(Wrapper, (2, 4), expected=(2, 5), device="cpu")


class TiedLM(nn.Module):
    """Ties its head to its embedding in tie_weights(), like a transformers model."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.tie_weights()

    def tie_weights(self) -> None:
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(tokens))


def test_meta_load_accepts_a_tied_weight_stored_once_and_reties_it() -> None:
    checkpoint = {"embed.weight": torch.randn(10, 4)}  # save_pretrained style: no head.weight
    with process_state_unchanged():
        assert_meta_load(TiedLM, checkpoint, torch.tensor([[1, 2, 3]]))


def test_meta_load_accepts_a_model_instance() -> None:
    model = TiedLM()
    assert_meta_load(model, {"embed.weight": model.embed.weight.detach()}, torch.tensor([[4, 5]]))
    assert not model.embed.weight.is_meta


# ------------------------------------------------ mode, meta kernels, devices


class CacheInEval(nn.Module):
    """Returns its recurrent state only in eval mode, like a state-space model's cache."""

    def __init__(self) -> None:
        super().__init__()
        self.mix = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        hidden = self.mix(x)
        return {"logits": hidden} if self.training else {"logits": hidden, "cache": hidden[:, -1]}


def test_meta_and_real_forwards_run_in_the_same_mode() -> None:
    assert_meta_shapes(CacheInEval, (2, 3, 4), expected={"logits": (2, 3, 4), "cache": (2, 4)}, device="cpu")


class GroupedExperts(nn.Module):
    """Experts applied with torch._grouped_mm, as transformers' MoE layers do: its meta
    kernel wants bfloat16, its CPU kernel takes float32 too."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        offsets = torch.tensor([x.shape[0] // 2, x.shape[0]], dtype=torch.int32, device=x.device)
        return torch._grouped_mm(x, self.weight, offs=offsets)


class Router(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.experts = GroupedExperts()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.experts(x)


def test_a_meta_kernel_that_refuses_a_dtype_is_named_as_a_meta_limitation_not_a_hard_coded_device() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_shapes(Router, (8, 4))
    message = str(failure.value)
    assert message.startswith(
        "assert_meta_shapes: `aten._grouped_mm` in module 'experts' (GroupedExperts) cannot run on the meta "
        "device: its meta kernel refuses inputs that its real kernel accepts (on CPU it runs on zero-filled "
        "inputs of the same shapes and dtypes: [8, 4] float32, [2, 4, 4] float32, [2] int32)."
    )
    assert "not a hard-coded device and not a bug in Router" in message
    with pytest.warns(RuntimeWarning, match="cannot run on the meta device"):
        assert_meta_shapes(Router, (8, 4), expected=(8, 4), device="cpu")


def test_a_shape_bug_in_an_operation_is_still_a_failure_and_not_a_meta_limitation() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_shapes(Router, (8, 3), device="cpu")
    assert "cannot run on the meta device" not in str(failure.value)
    assert "failed in module 'experts' (GroupedExperts)" in str(failure.value)


class FixedDeviceMask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mask = torch.ones(x.shape[0], 4, device="cpu")
        return self.fc(x) * mask


def test_devices_agree_on_meta_names_the_line_that_created_a_tensor_on_a_fixed_device() -> None:
    from torchcheck import assert_devices_agree

    with pytest.raises(CheckFailed) as failure:
        assert_devices_agree(FixedDeviceMask, torch.randn(2, 4), devices=["cpu", "meta"])
    message = str(failure.value)
    assert "Cause: a tensor on cpu meets the model's meta tensors in `aten.mul.Tensor`." in message
    assert 'test_meta.py' in message and 'mask = torch.ones(x.shape[0], 4, device="cpu")' in message


def test_devices_agree_on_meta_names_a_meta_kernel_limitation() -> None:
    from torchcheck import assert_devices_agree

    with pytest.raises(CheckFailed, match="the meta kernel of `aten._grouped_mm` refuses inputs"):
        assert_devices_agree(Router, torch.randn(8, 4), devices=["cpu", "meta"])


# ----------------------------------------------- meta load: values, compiled


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


class CompiledBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = torch.compile(Block(), backend="eager")
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.block(x))


def test_meta_load_accepts_a_checkpoint_of_a_model_with_a_compiled_submodule() -> None:
    checkpoint = CompiledBlock().state_dict()
    assert "block._orig_mod.fc.weight" in checkpoint
    assert_meta_load(CompiledBlock, checkpoint, torch.randn(2, 4))


class ScaledEmbedding(nn.Embedding):
    """An embedding that holds a non-persistent buffer, like Gemma's."""

    def __init__(self) -> None:
        super().__init__(10, 4)
        self.scale = nn.Buffer(torch.tensor(2.0), persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return super().forward(tokens) * self.scale


class EmbeddingLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = ScaledEmbedding()
        self.head = nn.Linear(4, 3)

    def _init_weights(self, module: nn.Module) -> None:
        """Like transformers: initialises everything a module holds."""
        if isinstance(module, ScaledEmbedding):
            nn.init.normal_(module.weight)
            nn.init.constant_(module.scale, 2.0)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(tokens))


def init_every_tensor_of_the_module(model: nn.Module) -> None:
    """The recipe as the docs once had it: re-initialises the loaded embedding too."""
    for module in model.modules():
        for name in module._non_persistent_buffers_set:
            buffer = module._buffers.get(name)
            if buffer is not None and buffer.is_meta:
                module._buffers[name] = torch.empty_like(buffer, device="cpu")
                model._init_weights(module)


def test_meta_load_names_parameters_that_after_load_reinitialised() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(EmbeddingLM, EmbeddingLM().state_dict(), torch.tensor([[1, 2]]),
                         after_load=init_every_tensor_of_the_module)
    message = str(failure.value)
    assert message.startswith(
        "assert_meta_load: after loading, 1 tensors of EmbeddingLM no longer hold the checkpoint's values:\n"
        "  embed.weight (its module holds the non-persistent buffer scale)\nafter_load changed them"
    )
    assert "outputs" not in message.splitlines()[0]


def test_the_documented_buffer_recipe_keeps_the_loaded_parameters_of_the_same_module() -> None:
    assert_meta_load(EmbeddingLM, EmbeddingLM().state_dict(), torch.tensor([[1, 2]]),
                     after_load=init_non_persistent_buffers)
