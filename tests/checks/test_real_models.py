"""The checks on real models: tiny-config transformers models built without a download,
called the way tokenizer output calls them (a ``BatchEncoding`` with an
``attention_mask``), and hand-built CNNs initialised like timm's. A correct model passes
every check; each planted bug is caught with its named cause."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch import nn

import torchcheck as tc

from ._helpers import module_unchanged, process_state_unchanged
from ._loading import init_non_persistent_buffers, saved_like_save_pretrained
from ._models import TINY, Transformer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
transformers = pytest.importorskip("transformers")

VOCAB = 64
SEQ = 8
TOKENS = torch.zeros(2, SEQ, dtype=torch.long)


def llama() -> nn.Module:
    config = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=True,
    )
    return transformers.LlamaForCausalLM(config)


def gpt2() -> nn.Module:
    config = transformers.GPT2Config(
        vocab_size=VOCAB, n_embd=32, n_layer=1, n_head=2, n_positions=64, bos_token_id=0, eos_token_id=0
    )
    return transformers.GPT2LMHeadModel(config)


def bert() -> nn.Module:
    config = transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64, num_labels=3,
    )
    return transformers.BertForSequenceClassification(config)


def t5() -> nn.Module:
    config = transformers.T5Config(
        vocab_size=VOCAB, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2, decoder_start_token_id=0
    )
    return transformers.T5ForConditionalGeneration(config)


MODELS: dict[str, Callable[[], nn.Module]] = {"llama": llama, "gpt2": gpt2, "bert": bert, "t5": t5}
EXPECTED_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "llama": {"logits": (2, SEQ, VOCAB)},
    "gpt2": {"logits": (2, SEQ, VOCAB)},
    "bert": {"logits": (2, 3)},
    "t5": {"logits": (2, SEQ, VOCAB), "encoder_last_hidden_state": (2, SEQ, 16)},
}


def tokenized(name: str, mask: bool = True) -> Any:
    """What a tokenizer returns for two sentences, the second one padded."""
    generator = torch.Generator().manual_seed(0)
    data: dict[str, torch.Tensor] = {"input_ids": torch.randint(1, VOCAB, (2, SEQ), generator=generator)}
    if mask:
        attention_mask = torch.ones(2, SEQ, dtype=torch.long)
        attention_mask[1, -2:] = 0
        data["attention_mask"] = attention_mask
    if name == "t5":
        data["decoder_input_ids"] = torch.randint(1, VOCAB, (2, SEQ), generator=generator)
    return transformers.BatchEncoding(data)


# ------------------------------------------------------- correct models pass


@pytest.mark.parametrize("name", MODELS)
def test_a_correct_model_in_training_mode_is_reproducible(name: str) -> None:
    make, batch = MODELS[name], tokenized(name)
    with process_state_unchanged():
        tc.assert_reproducible(lambda: make().train()(**batch))


@pytest.mark.parametrize("name", MODELS)
def test_every_parameter_of_a_correct_model_gets_a_gradient(name: str) -> None:
    model = MODELS[name]()
    with module_unchanged(model):
        tc.assert_gradients_flow(model, tokenized(name))


@pytest.mark.parametrize("name", MODELS)
def test_a_correct_model_agrees_with_itself_on_every_device(name: str) -> None:
    tc.assert_devices_agree(MODELS[name], tokenized(name))


@pytest.mark.parametrize("name", MODELS)
def test_a_correct_model_loads_through_meta_from_a_checkpoint_storing_tied_weights_once(name: str) -> None:
    make = MODELS[name]
    checkpoint = saved_like_save_pretrained(make())
    tc.assert_meta_load(make, checkpoint, tokenized(name), after_load=init_non_persistent_buffers)


@pytest.mark.parametrize("name", MODELS)
def test_meta_shapes_of_a_correct_model_match_the_named_outputs(name: str) -> None:
    tc.assert_meta_shapes(MODELS[name], tokenized(name, mask=False), expected=EXPECTED_SHAPES[name])


@pytest.mark.parametrize("name", ["llama", "t5"])
def test_with_a_mask_the_shapes_are_checked_on_the_real_device_with_a_warning(name: str) -> None:
    with pytest.warns(RuntimeWarning, match="cannot run on the meta device"):
        tc.assert_meta_shapes(MODELS[name], tokenized(name), expected=EXPECTED_SHAPES[name], device="cpu")


@pytest.mark.parametrize("name", ["gpt2", "t5"])
def test_caches_on_meta_agree_with_caches_on_cpu_in_structure(name: str) -> None:
    tc.assert_devices_agree(MODELS[name], tokenized(name, mask=False), devices=["cpu", "meta"])


def test_a_classifier_fed_a_mask_is_batch_independent() -> None:
    model = bert()
    with module_unchanged(model):
        tc.assert_batch_independent(model, dict(tokenized("bert")))


def test_a_compiled_model_passes_the_meta_checks() -> None:
    compiled = lambda: torch.compile(llama(), backend="eager")  # noqa: E731
    assert tc.meta_shapes(compiled, tokenized("llama", mask=False)).logits == torch.Size([2, SEQ, VOCAB])
    checkpoint = saved_like_save_pretrained(llama())
    tc.assert_meta_load(compiled, checkpoint, tokenized("llama"), after_load=init_non_persistent_buffers)


# -------------------------------------------------------- planted bugs caught


NOISE = torch.Generator()


def add_unseeded_noise(module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor:
    return output + 0.01 * torch.randn(output.shape, generator=NOISE)  # bug: a generator the seed never reaches


def test_noise_from_an_unseeded_generator_is_named_random_number_generation() -> None:
    model = gpt2().eval()
    model.transformer.h[0].mlp.register_forward_hook(add_unseeded_noise)
    batch = tokenized("gpt2")
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_reproducible(lambda: model(**batch))
    message = str(failure.value)
    assert "differs from run 1 at output.logits" in message
    assert "Cause: random number generation" in message
    assert "1 torch.Generator passed as generator=" in message


def test_a_mask_on_meta_is_named_a_data_dependent_operation_not_a_hard_coded_device() -> None:
    with pytest.raises(tc.CheckFailed) as failure:
        tc.meta_shapes(llama, tokenized("llama"))
    message = str(failure.value)
    assert "data-dependent operation `Tensor.item()`" in message
    assert "in module 'model' (LlamaModel) cannot run on the meta device" in message
    assert "RuntimeError: Tensor.item() cannot be called on meta tensors" in message
    assert "raised from: " in message and "/transformers/" in message
    assert "no attention_mask" in message
    assert "hard-coded device" not in message


def test_a_mask_on_meta_in_devices_agree_is_named_a_data_dependent_operation() -> None:
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_devices_agree(llama, tokenized("llama"), devices=["cpu", "meta"])
    assert "data-dependent operation, `Tensor.item()`" in str(failure.value)
    assert "this is not a hard-coded device" in str(failure.value)


def add_cpu_constant(module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor:
    return output + torch.ones(output.shape[-1], device="cpu")  # bug: ignores the device of its input


def test_a_hard_coded_device_inside_a_real_model_is_named_with_its_module_path() -> None:
    def make() -> nn.Module:
        model = llama()
        model.model.layers[0].mlp.register_forward_hook(add_cpu_constant)
        return model

    with pytest.raises(tc.CheckFailed) as failure:
        tc.meta_shapes(make, tokenized("llama", mask=False))
    message = str(failure.value)
    assert "failed in module 'model.layers.0.mlp' (LlamaMLP)" in message
    assert "hard-coded device" in message


def test_a_shape_bug_in_a_compiled_model_is_named_by_its_path_without_orig_mod() -> None:
    with pytest.raises(tc.CheckFailed) as failure:
        tc.meta_shapes(lambda: torch.compile(Transformer(TINY, bug_in_block=1), backend="eager"), TOKENS)
    message = str(failure.value)
    assert "failed in module 'blocks.1.attn' (Attention)" in message
    assert "_orig_mod" not in message


def test_meta_load_names_a_key_that_is_really_missing_but_not_the_tied_head() -> None:
    checkpoint = saved_like_save_pretrained(llama())
    del checkpoint["model.norm.weight"]
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_meta_load(llama, checkpoint, after_load=init_non_persistent_buffers)
    assert str(failure.value).endswith("reports missing keys: model.norm.weight")


def test_meta_load_names_non_persistent_buffers_nobody_initialised() -> None:
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_meta_load(bert, bert().state_dict())
    assert "  buffer bert.embeddings.position_ids\n  buffer bert.embeddings.token_type_ids" in str(failure.value)


def detach_output(module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor:
    return output.detach()  # bug: cuts the MLP off from the loss


def test_a_detached_layer_of_a_real_model_is_named_as_getting_no_gradient() -> None:
    model = llama()
    model.model.layers[0].mlp.register_forward_hook(detach_output)
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_gradients_flow(model, tokenized("llama"), allow_zero=["*"])
    message = str(failure.value)
    assert "4 of 11 parameters with requires_grad got no usable gradient" in message
    assert "no gradient (None)" in message
    assert "    model.layers.0.mlp.gate_proj.weight\n" in message
    assert "    model.layers.0.post_attention_layernorm.weight" in message  # feeds only the MLP


# -------------------------------------------- timm-like CNNs and zero init


class BasicBlock(nn.Module):
    """A ResNet block; ``zero_init_last`` is timm's default (the last BN weight is 0)."""

    def __init__(self, channels: int, zero_init_last: bool = True, dead: bool = False) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.dead = dead
        if zero_init_last:
            nn.init.zeros_(self.bn2.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        branch = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        if self.dead:
            branch = branch * 0.0  # bug: the branch can never learn
        return torch.relu(x + branch)


class TinyResNet(nn.Module):
    def __init__(self, dead_block: int | None = None) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.blocks = nn.Sequential(*(BasicBlock(8, dead=i == dead_block) for i in range(2)))
        self.head = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.stem(x)).mean(dim=(2, 3)))


class LoRALinear(nn.Module):
    """A frozen base layer plus ``B @ A`` with B = 0 at the start, as LoRA does."""

    def __init__(self, features: int, rank: int = 2) -> None:
        super().__init__()
        self.base = nn.Linear(features, features)
        self.base.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(rank, features) * 0.1)
        self.lora_b = nn.Parameter(torch.zeros(features, rank))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + x @ self.lora_a.T @ self.lora_b.T


class TinyViT(nn.Module):
    """Patch embedding, one encoder layer and a zero head (timm's jax init)."""

    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, 16, 4, stride=4)
        self.encoder = nn.TransformerEncoderLayer(16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.head = nn.Linear(16, 5)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = self.patch(x).flatten(2).transpose(1, 2)
        return self.head(self.encoder(tokens).mean(dim=1))


IMAGES = torch.randn(2, 3, 8, 8)


@pytest.mark.parametrize("make", [TinyResNet, lambda: LoRALinear(6), TinyViT], ids=["resnet", "lora", "vit"])
def test_zero_initialised_multipliers_do_not_fail_gradients_flow(make: Callable[[], nn.Module]) -> None:
    model = make()
    inputs = torch.randn(3, 6) if isinstance(model, LoRALinear) else IMAGES
    with process_state_unchanged(), module_unchanged(model):
        tc.assert_gradients_flow(model, inputs)


def test_a_branch_multiplied_by_a_constant_zero_is_still_reported() -> None:
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_gradients_flow(TinyResNet(dead_block=1), IMAGES)
    message = str(failure.value)
    assert "all-zero gradient, still zero after 3 optimizer steps on a copy" in message
    assert "    blocks.1.conv1.weight\n" in message and "blocks.0." not in message


def test_allow_zero_accepts_a_known_dead_branch_by_pattern() -> None:
    tc.assert_gradients_flow(TinyResNet(dead_block=1), IMAGES, allow_zero=["blocks.1.*"])


def test_a_model_factory_works_like_an_instance_in_gradients_flow() -> None:
    tc.assert_gradients_flow(TinyResNet, IMAGES)
