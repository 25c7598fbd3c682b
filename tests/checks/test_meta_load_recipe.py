"""The docs' recipe for non-persistent buffers after a meta load keeps every loaded tensor,
also where a module's initialisation writes to its children (CLIP's embeddings initialise
their token and position embeddings), and the docs, the tests and the example project hold
one and the same recipe."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_meta_load

from ._loading import init_non_persistent_buffers, saved_like_save_pretrained

ROOT = Path(__file__).resolve().parents[2]
RECIPE = "init_non_persistent_buffers"


class TextEmbeddings(nn.Module):
    """CLIP's text embeddings in small: the parameters belong to child modules, the
    non-persistent buffer to this one."""

    def __init__(self) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(10, 4)
        self.position_embedding = nn.Embedding(6, 4)
        self.position_ids = nn.Buffer(torch.arange(6)[None], persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = self.position_ids[:, : tokens.shape[1]]
        return self.token_embedding(tokens) + self.position_embedding(positions)


class ClipLikeModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.text = TextEmbeddings()
        self.head = nn.Linear(4, 3)

    def _init_weights(self, module: nn.Module) -> None:
        """As CLIP's: initialising the embeddings module initialises its children's weights."""
        if isinstance(module, TextEmbeddings):
            nn.init.normal_(module.token_embedding.weight, std=0.02)
            nn.init.normal_(module.position_embedding.weight, std=0.02)
            module.position_ids.copy_(torch.arange(6)[None])

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.text(tokens))


def init_the_module_own_parameters_on_meta(model: nn.Module) -> None:
    """The recipe as the docs had it: only the module's own parameters swapped for meta."""
    for module in model.modules():
        names = [name for name, buffer in module._buffers.items()
                 if name in module._non_persistent_buffers_set and buffer is not None and buffer.is_meta]
        if not names:
            continue
        for name in names:
            module._buffers[name] = torch.empty_like(module._buffers[name], device="cpu")
        loaded = dict(module._parameters)
        module._parameters.update({n: nn.Parameter(p.to("meta")) for n, p in loaded.items() if p is not None})
        model._init_weights(module)
        module._parameters.update(loaded)


TOKENS = torch.tensor([[1, 2, 3], [4, 5, 6]])


def test_the_recipe_keeps_the_children_weights_that_a_module_initialisation_reaches() -> None:
    assert_meta_load(ClipLikeModel, ClipLikeModel().state_dict(), TOKENS, after_load=init_non_persistent_buffers)


def test_the_recipe_leaves_the_loaded_tensors_in_place_and_initialises_the_buffer() -> None:
    from torchcheck.checks.meta import _build_on_meta

    saved = {name: tensor.clone() for name, tensor in ClipLikeModel().state_dict().items()}
    model = _build_on_meta(ClipLikeModel, "test")
    model.load_state_dict(saved, assign=True, strict=False)
    loaded = {name: tensor for name, tensor in model.named_parameters()}
    init_non_persistent_buffers(model)
    assert {name: tensor for name, tensor in model.named_parameters()} == loaded  # the same objects
    assert all(torch.equal(tensor, saved[name]) for name, tensor in loaded.items())
    assert torch.equal(model.text.position_ids, torch.arange(6)[None])


def test_an_initialisation_that_reaches_children_is_named_with_the_module_that_holds_the_buffer() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_meta_load(ClipLikeModel, ClipLikeModel().state_dict(), TOKENS,
                         after_load=init_the_module_own_parameters_on_meta)
    message = str(failure.value)
    assert message.startswith(
        "assert_meta_load: after loading, 2 tensors of ClipLikeModel no longer hold the checkpoint's values:\n"
        "  text.token_embedding.weight (inside 'text', which holds the non-persistent buffer position_ids)\n"
        "  text.position_embedding.weight (inside 'text', which holds the non-persistent buffer position_ids)\n"
        "after_load changed them"
    )
    assert "often of its children too" in message
    assert "swap every loaded parameter and buffer of the model for a meta stand-in" in message


def tiny_clip() -> nn.Module:
    transformers = pytest.importorskip("transformers")
    text = {"vocab_size": 32, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 16, "projection_dim": 8,
            "bos_token_id": 0, "eos_token_id": 1, "pad_token_id": 1}
    vision = {"image_size": 16, "patch_size": 8, "hidden_size": 16, "intermediate_size": 32,
              "num_hidden_layers": 1, "num_attention_heads": 2, "projection_dim": 8}
    config = transformers.CLIPConfig(text_config=text, vision_config=vision, projection_dim=8)
    return transformers.CLIPModel(config)


def test_the_recipe_loads_clip_through_meta() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    inputs = {"input_ids": torch.randint(2, 32, (2, 5)), "pixel_values": torch.randn(2, 3, 16, 16)}
    assert_meta_load(tiny_clip, saved_like_save_pretrained(tiny_clip()), inputs,
                     after_load=init_non_persistent_buffers)


def _recipe_in(source: str) -> str:
    """The recipe's function as an AST dump, without its docstring and type hints."""
    function = next(node for node in ast.walk(ast.parse(source))
                    if isinstance(node, ast.FunctionDef) and node.name == RECIPE)
    function.body = [statement for statement in function.body
                     if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
    function.returns = None
    for argument in function.args.args:
        argument.annotation = None
    return ast.dump(function)


def _docs_block_with_recipe() -> str:
    page = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    return next(block for block in blocks if f"def {RECIPE}(" in block)


@pytest.mark.parametrize("copy", ["tests/checks/_loading.py", "fixtures/example_project/tests/test_hf_model.py"])
def test_every_copy_of_the_recipe_is_the_one_in_the_docs(copy: str) -> None:
    documented = _recipe_in(_docs_block_with_recipe())
    assert _recipe_in((ROOT / copy).read_text(encoding="utf-8")) == documented
