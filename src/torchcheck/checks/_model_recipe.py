"""What the model battery needs, as Python objects: how to build the model, make a batch
on a device, compute the loss, make an optimizer and take a training step.

A :class:`ModelRecipe` comes either from a ``[tool.torchcheck.models.<name>]`` table
(:func:`recipe_from_spec`: imports the factory, builds an HF model from its config) or
from ``tc.check_model``'s arguments. A batch is passed to the model as the checks pass
``*inputs``: a dict as keyword arguments, a tuple or list positionally, anything else as
the single argument; ``loss_fn(outputs, batch)`` gets the outputs and the whole batch.
"""

from __future__ import annotations

import importlib
import os
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import map_tensors
from torchcheck.checks._model_config import FLOAT_DTYPES, ModelSpec, TensorSpec, hf_computes_loss
from torchcheck.checks.errors import NotApplicable
from torchcheck.checks.seeding import seeded

__tracebackhide__ = True
__all__ = ["ModelRecipe", "ModelSetupError", "batch_inputs", "forward", "recipe_from_spec"]

LossFn = Callable[[Any, Any], torch.Tensor]
StepFn = Callable[[nn.Module, Any, Any], Any]

CANNOT_IMPORT = "{table}: {key} = {value!r}: cannot import {module}: {error_type}: {error}"
NO_ATTRIBUTE = "{table}: {key} = {value!r}: module {module} has no attribute {attr!r}"
RAISED = "{table}: {key} = {value!r} raised {error_type}: {error}{where}"
NOT_A_MODULE = "{table}: {key} = {value!r} returned {type_name}, not a torch.nn.Module"
NEEDS_TRANSFORMERS = "{table}: hf needs the transformers package: pip install transformers"
NO_HF_CONFIG = (
    "cannot get the config of {id!r} ({error_type}: {error}). Offline CI: set HF_HUB_OFFLINE=1 with a "
    "restored Hugging Face cache, or give `config_file` (a config.json in the repository); a gated "
    "repository needs a token even for its config"
)
HF_TASK_CLASSES = {
    "base": "AutoModel",
    "causal-lm": "AutoModelForCausalLM",
    "masked-lm": "AutoModelForMaskedLM",
    "seq2seq-lm": "AutoModelForSeq2SeqLM",
    "sequence-classification": "AutoModelForSequenceClassification",
    "token-classification": "AutoModelForTokenClassification",
}
# shrink = true: (attribute names across architectures, tiny value)
_SHRINK: tuple[tuple[tuple[str, ...], int], ...] = (
    (("num_hidden_layers", "n_layer", "num_layers", "num_decoder_layers", "n_layers"), 2),
    (("hidden_size", "n_embd", "d_model", "dim"), 32),
    (("num_attention_heads", "n_head", "num_heads", "n_heads"), 2),
    (("num_key_value_heads",), 1),
    (("intermediate_size", "n_inner", "d_ff", "ffn_dim", "hidden_dim"), 64),
    (("head_dim", "d_kv"), 16),
)
_SHRUNK_VOCAB = 1024
_PACKAGE = str(Path(__file__).resolve().parent.parent)
_DEFAULT_HF_BATCH = (2, 16)


class ModelSetupError(Exception):
    """The model's configuration cannot be turned into a model: an import path that does
    not import, a factory that raises. Not a finding about the model's correctness."""


@dataclass
class ModelRecipe:
    """Everything a check of the battery needs; ``build`` makes a fresh model on CPU."""

    name: str
    build: Callable[[], nn.Module]
    make_batch: Callable[[int], Any] | None  # seed -> a batch on CPU
    loss_fn: LossFn | None = None
    step_fn: StepFn | None = None
    make_optimizer: Callable[[nn.Module], Any] | None = None
    dtype: torch.dtype | None = None
    allow_zero: tuple[str, ...] = ()
    tolerance: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    compile_options: Mapping[str, Any] = field(default_factory=dict)
    distributed: Mapping[str, Any] = field(default_factory=dict)
    is_factory: bool = True
    eval_drops: tuple[str, ...] = ()  # batch keys the training step needs but eval checks leave out
    meta_drops: tuple[str, ...] = ()  # keys whose values steer the forward, which meta tensors lack

    def factory_on(self, device: torch.device) -> Callable[[], nn.Module]:
        """A factory of fresh models on ``device`` in the recipe's dtype."""

        def make_model() -> nn.Module:
            model = self.build().to(device)
            return model.to(self.dtype) if self.dtype is not None else model

        make_model.__qualname__ = make_model.__name__ = self.name
        return make_model

    def batch(self, device: torch.device, index: int = 0) -> Any:
        if self.make_batch is None:
            raise NotApplicable(f"{self.name}: no inputs")
        return _to(self.make_batch(index), device, self.dtype)

    def eval_batch(self, device: torch.device, index: int = 0) -> Any:
        batch = self.batch(device, index)
        if self.eval_drops and isinstance(batch, Mapping):
            return {key: value for key, value in batch.items() if key not in self.eval_drops}
        return batch

    def meta_batch(self) -> Any:
        batch = self.eval_batch(torch.device("cpu"))
        if self.meta_drops and isinstance(batch, Mapping):
            return {key: value for key, value in batch.items() if key not in self.meta_drops}
        return batch

    def batches(self, device: torch.device, count: int) -> list[Any]:
        return [self.batch(device, index) for index in range(count)]

    @property
    def trains(self) -> bool:
        return self.step_fn is not None or (self.loss_fn is not None and self.make_optimizer is not None)

    def step(self) -> StepFn:
        """The declared step, or the standard one (zero_grad, forward, loss, backward, step)."""
        if self.step_fn is not None:
            return self.step_fn
        if self.loss_fn is None or self.make_optimizer is None:
            raise NotApplicable(f"{self.name}: no step, and no loss + optimizer")
        return standard_step(self.loss_fn)

    def optimizer_for(self, model: nn.Module) -> Any:
        if self.make_optimizer is None:
            raise NotApplicable(f"{self.name}: no optimizer")
        made = self.make_optimizer(model)
        return made[0] if isinstance(made, tuple) else made

    def tolerance_of(self, check: str) -> dict[str, float]:
        return dict(self.tolerance.get(check, {}))


def forward(model: Callable[..., Any], batch: Any) -> Any:
    """``model`` called with a batch the way the checks call it."""
    if isinstance(batch, Mapping):
        return model(**batch)
    if isinstance(batch, (tuple, list)):
        return model(*batch)
    return model(batch)


def batch_inputs(batch: Any) -> tuple[Any, ...]:
    """The ``*inputs`` of a check for one batch."""
    return tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)


def standard_step(loss_fn: LossFn) -> StepFn:
    def train_step(model: nn.Module, optimizer: Any, batch: Any) -> torch.Tensor:
        model.train()
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(forward(model, batch), batch)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return train_step


def hf_loss(outputs: Any, batch: Any) -> torch.Tensor:
    """An HF model given ``labels`` computes its own loss."""
    return outputs.loss


def _to(batch: Any, device: torch.device, dtype: torch.dtype | None) -> Any:
    def move(tensor: torch.Tensor) -> torch.Tensor:
        tensor = tensor.to(device)
        return tensor.to(dtype) if dtype is not None and tensor.is_floating_point() else tensor

    return map_tensors(batch, move)


# --- from a [tool.torchcheck.models.<name>] table -----------------------------------


def recipe_from_spec(spec: ModelSpec, rootdir: str | os.PathLike[str]) -> ModelRecipe:
    """Import what ``spec`` names and build the model once, so that an import error or
    a raising factory is reported here, naming the table and the key."""
    hf_config = None
    if spec.hf is not None:
        build, hf_config = _hf_factory(spec, Path(rootdir))
    else:
        build = _checked_factory(spec, _resolve(spec, "factory"))
    build()  # a factory that raises fails here, naming the key, not inside a check
    make_batch = _batch_maker(spec, hf_config)
    loss_fn = _resolve(spec, "loss") if spec.loss else None
    if loss_fn is None and hf_computes_loss(spec):
        loss_fn = hf_loss
    return ModelRecipe(
        name=spec.name,
        build=build,
        make_batch=make_batch,
        loss_fn=loss_fn,
        step_fn=_resolve(spec, "step") if spec.step else None,
        make_optimizer=_optimizer_factory(spec) if spec.optimizer else None,
        dtype=getattr(torch, spec.dtype) if spec.dtype else None,
        allow_zero=spec.allow_zero,
        tolerance=spec.tolerance,
        compile_options=spec.compile,
        distributed=spec.distributed,
        eval_drops=("labels",) if hf_config is not None else (),
        meta_drops=("attention_mask",) if hf_config is not None else (),  # shapes do not depend on it
    )


def _resolve(spec: ModelSpec, key: str) -> Any:
    value = getattr(spec, key)
    module_name, _, attr = value.partition(":") if ":" in value else value.rpartition(".")
    fields = {"table": spec.table, "key": key, "value": value, "module": module_name}
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:
        message = CANNOT_IMPORT.format(error_type=type(error).__name__, error=error, **fields)
        raise ModelSetupError(message + user_frames(error)) from None
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ModelSetupError(NO_ATTRIBUTE.format(attr=attr, **fields))
        target = getattr(target, part)
    return target


def user_frames(error: BaseException) -> str:
    """The frames of the user's code in ``error``'s traceback (not torchcheck's, not the
    import machinery's), formatted like a traceback; empty when there are none."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith(_PACKAGE) and "importlib" not in frame.filename
    ]
    if not frames:
        return ""
    return "\n" + "".join(traceback.format_list(frames)).rstrip()


def _checked_factory(spec: ModelSpec, factory: Callable[[], Any]) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        try:
            model = factory()
        except Exception as error:
            raise ModelSetupError(
                RAISED.format(
                    table=spec.table, key="factory", value=spec.factory, error_type=type(error).__name__, error=error,
                    where=user_frames(error),
                )
            ) from None
        if not isinstance(model, nn.Module):
            raise ModelSetupError(NOT_A_MODULE.format(table=spec.table, key="factory", value=spec.factory, type_name=type(model).__name__))
        return model

    return build


def _optimizer_factory(spec: ModelSpec) -> Callable[[nn.Module], Any]:
    """``optimizer`` is an optimizer class (called with the parameters and
    ``optimizer_args``) or a function ``make_optimizer(model)``."""
    target = _resolve(spec, "optimizer")
    args = dict(spec.optimizer_args)
    if isinstance(target, type) and issubclass(target, torch.optim.Optimizer):
        return lambda model: target(model.parameters(), **args)
    return lambda model: target(model, **args)


def _batch_maker(spec: ModelSpec, hf_config: Any) -> Callable[[int], Any] | None:
    inputs = spec.inputs
    if inputs is None and hf_config is not None:
        return _default_hf_batch(spec, hf_config)
    if inputs is None:
        return None
    if isinstance(inputs, str):
        make_inputs = _resolve(spec, "inputs")

        def from_function(seed: int) -> Any:
            with seeded(seed, deterministic=False):
                return make_inputs(torch.device("cpu"))

        return from_function
    vocab = getattr(hf_config, "vocab_size", None)
    if isinstance(inputs, Mapping):
        return lambda seed: _named_tensors(inputs, seed, vocab)
    return lambda seed: tuple(make_tensor(each, torch.Generator().manual_seed(seed + i), vocab) for i, each in enumerate(inputs))


def _named_tensors(specs: Mapping[str, TensorSpec], seed: int, vocab: int | None) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return {name: make_tensor(spec, generator, vocab) for name, spec in specs.items()}


def make_tensor(spec: TensorSpec, generator: torch.Generator, vocab: int | None = None) -> torch.Tensor:
    """One generated input on CPU, drawn from ``generator`` (the global RNG is untouched)."""
    if spec.kind in ("ones", "zeros"):
        return (torch.ones if spec.kind == "ones" else torch.zeros)(spec.shape, dtype=torch.int64)
    if spec.kind == "mask":
        return padding_mask(spec.shape)
    dtype = getattr(torch, spec.kind)
    if spec.kind in FLOAT_DTYPES:
        return torch.randn(spec.shape, generator=generator).to(dtype)
    if spec.kind == "bool":
        return torch.randint(0, 2, spec.shape, generator=generator).bool()
    high = vocab if spec.high == "vocab" else spec.high
    return torch.randint(0, int(high or 2), spec.shape, generator=generator, dtype=dtype)


def padding_mask(shape: tuple[int, ...]) -> torch.Tensor:
    """A right-padding mask with mixed lengths: the first row full, later rows shorter."""
    batch, length = shape[0], shape[-1]
    cut = max(1, length // (2 * batch))
    lengths = [max(1, length - row * cut) for row in range(batch)]
    mask = torch.zeros(shape, dtype=torch.int64)
    for row, kept in enumerate(lengths):
        mask[row, ..., :kept] = 1
    return mask


def _default_hf_batch(spec: ModelSpec, config: Any) -> Callable[[int], dict[str, torch.Tensor]]:
    causal = (spec.hf or {}).get("task") == "causal-lm"

    def make(seed: int) -> dict[str, torch.Tensor]:
        generator = torch.Generator().manual_seed(seed)
        ids = torch.randint(0, config.vocab_size, _DEFAULT_HF_BATCH, generator=generator)
        # No padding: a token-averaged loss over padded rows couples the samples, which
        # would fail accumulation_equivalent on every stock model. `mask[B,T]` asks for it.
        batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        if causal:
            batch["labels"] = ids.clone()
        return batch

    return make


def _hf_factory(spec: ModelSpec, rootdir: Path) -> tuple[Callable[[], nn.Module], Any]:
    hf = dict(spec.hf or {})
    try:
        transformers = importlib.import_module("transformers")
    except ImportError:
        raise ModelSetupError(NEEDS_TRANSFORMERS.format(table=spec.table)) from None
    config = _hf_config(spec, transformers, hf, rootdir)
    if hf.get("shrink"):
        shrink_config(config)
    for key, value in hf.get("config", {}).items():
        setattr(config, key, value)
    model_class = getattr(transformers, HF_TASK_CLASSES[hf.get("task", "base")])

    def build() -> nn.Module:
        try:
            return model_class.from_config(config)
        except Exception as error:
            raise ModelSetupError(
                RAISED.format(table=spec.table, key="hf", value=hf, error_type=type(error).__name__, error=error, where="")
            ) from None

    return build, config


def _hf_config(spec: ModelSpec, transformers: Any, hf: Mapping[str, Any], rootdir: Path) -> Any:
    if "config_file" in hf:
        path = rootdir / str(hf["config_file"])
        try:
            return transformers.AutoConfig.from_pretrained(str(path))
        except Exception as error:
            raise ModelSetupError(
                f"{spec.table}: hf.config_file = {hf['config_file']!r}: cannot read {path}: {type(error).__name__}: {error}"
            ) from None
    try:
        return transformers.AutoConfig.from_pretrained(hf["id"])
    except (OSError, ValueError) as error:
        first_line = (str(error).strip().splitlines() or [""])[0]
        raise NotApplicable(NO_HF_CONFIG.format(id=hf["id"], error_type=type(error).__name__, error=first_line)) from None


def shrink_config(config: Any) -> None:
    """Layers, widths and heads of ``config`` made tiny (random init, seconds on CPU)."""
    for names, tiny in _SHRINK:
        for name in names:
            if isinstance(getattr(config, name, None), int) and not isinstance(getattr(config, name), bool):
                setattr(config, name, min(getattr(config, name), tiny))
    if isinstance(getattr(config, "vocab_size", None), int):
        config.vocab_size = min(config.vocab_size, _SHRUNK_VOCAB)
    for name in ("pad_token_id", "bos_token_id", "eos_token_id"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value >= config.vocab_size:
            setattr(config, name, config.vocab_size - 1)


def first_batch_size(batch: Any) -> int | None:
    from torchcheck.checks._compare import iter_tensors

    for _, tensor in iter_tensors(batch, "batch"):
        if tensor.dim() > 0:
            return int(tensor.shape[0])
    return None

