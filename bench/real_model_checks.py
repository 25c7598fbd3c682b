"""Run torchcheck's public checks on real, correct models and count the false failures.

Every model here is correct, so every failure is a false failure of the check (or a
property of the model the check reports by design, which the notes column says). The
models: tiny-config transformers models built from configs (no download), hand-built
CNNs, and, when timm imports, small timm architectures (``pretrained=False``). Each runs
on every available device; the distributed checks start CPU ranks and run once.

    python bench/real_model_checks.py [--models llama,resnet18] [--checks ...] [--devices cpu]

Prints a Markdown table model x check (pass / FAIL(cause) / n/a) per device, and totals.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import torchcheck as tc  # noqa: E402

PASS = "pass"
NOT_APPLICABLE = "n/a"
CAUSE_WIDTH = 90
VOCAB = 64
SEQ = 8
BATCH = 4
IMAGE = 32
CLASSES = 10

CHECKS: tuple[str, ...] = (
    "assert_reproducible",
    "assert_gradcheck",
    "assert_gradients_flow",
    "assert_batch_independent",
    "assert_amp_step",
    "assert_checkpoint_roundtrip",
    "assert_resume_equivalent",
    "assert_accumulation_equivalent",
    "assert_optimizer_covers",
    "meta_shapes",
    "assert_meta_shapes",
    "assert_meta_load",
    "assert_devices_agree",
    "assert_no_graph_leak",
    "assert_data_parallel_equivalent",
    "assert_sharded_checkpoint_roundtrip",
)

#: Why a check does not apply to a whole model (the table says n/a).
GRADCHECK_NOT_FOR_MODELS = "checks custom autograd functions by finite differences, not whole models"
ONE_DEVICE = "needs a second device (runs in the cuda column)"
CPU_RANKS = "starts CPU ranks itself (runs in the cpu column)"


@dataclass(frozen=True)
class Subject:
    """A correct model and how a user would feed and train it."""

    name: str
    make: Callable[[], nn.Module]
    inputs: Callable[[], Any]  # what the model is called with: a BatchEncoding or a tensor
    train_batch: Callable[[], Any]  # inputs with their targets, for a training step
    loss: Callable[[nn.Module, Any], torch.Tensor]
    after_load: Callable[[nn.Module], None] | None = None


# ------------------------------------------------------------------ subjects


def _transformers_subjects() -> list[Subject]:
    try:
        import transformers
    except ImportError:
        return []

    def tokens(name: str, mask: bool = True) -> Any:
        generator = torch.Generator().manual_seed(0)
        data = {"input_ids": torch.randint(1, VOCAB, (BATCH, SEQ), generator=generator)}
        if mask:
            data["attention_mask"] = torch.ones(BATCH, SEQ, dtype=torch.long)
            data["attention_mask"][1, -2:] = 0
        if name == "t5":
            data["decoder_input_ids"] = torch.randint(1, VOCAB, (BATCH, SEQ), generator=generator)
        return transformers.BatchEncoding(data)

    def labelled(name: str) -> Any:
        batch = tokens(name)
        labels = torch.arange(BATCH) % 3 if name == "bert" else batch["input_ids"]
        return transformers.BatchEncoding({**batch, "labels": labels})

    def init_non_persistent_buffers(model: nn.Module) -> None:
        for module in model.modules():
            for buffer_name in module._non_persistent_buffers_set:
                buffer = module._buffers.get(buffer_name)
                if buffer is not None and buffer.is_meta:
                    module._buffers[buffer_name] = torch.empty_like(buffer, device="cpu")
                    model._init_weights(module)

    builders: dict[str, Callable[[], nn.Module]] = {
        "llama": lambda: transformers.LlamaForCausalLM(transformers.LlamaConfig(
            vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=True)),
        "gpt2": lambda: transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=VOCAB, n_embd=32, n_layer=1, n_head=2, n_positions=64, bos_token_id=0, eos_token_id=0)),
        "bert": lambda: transformers.BertForSequenceClassification(transformers.BertConfig(
            vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=64, num_labels=3)),
        "t5": lambda: transformers.T5ForConditionalGeneration(transformers.T5Config(
            vocab_size=VOCAB, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2, decoder_start_token_id=0)),
    }
    return [
        Subject(
            name=f"hf-{name}",
            make=make,
            inputs=lambda name=name: tokens(name),
            train_batch=lambda name=name: labelled(name),
            loss=lambda model, batch: model(**batch).loss,
            after_load=init_non_persistent_buffers,
        )
        for name, make in builders.items()
    ]


class SmallCnn(nn.Module):
    """Conv-BN-ReLU blocks, dropout and a linear head: the common image classifier."""

    def __init__(self, norm: str = "batch") -> None:
        super().__init__()

        def norm_layer(channels: int) -> nn.Module:
            return nn.BatchNorm2d(channels) if norm == "batch" else nn.GroupNorm(4, channels)

        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), norm_layer(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), norm_layer(32), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(32, CLASSES))
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def _images() -> torch.Tensor:
    return torch.randn(BATCH, 3, IMAGE, IMAGE, generator=torch.Generator().manual_seed(0))


def _labelled_images() -> tuple[torch.Tensor, torch.Tensor]:
    return _images(), torch.arange(BATCH) % CLASSES


def _image_loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    x, y = batch
    return F.cross_entropy(model(x), y)


def _image_subject(name: str, make: Callable[[], nn.Module]) -> Subject:
    return Subject(name=name, make=make, inputs=_images, train_batch=_labelled_images, loss=_image_loss)


TIMM_MODELS: dict[str, dict[str, Any]] = {
    "resnet18": {},
    "efficientnet_b0": {},
    "mobilenetv3_small_100": {},
    "convnext_atto": {},
    "vit_tiny_patch16_224": {"img_size": IMAGE, "patch_size": 8},
}


def _timm_subjects() -> list[Subject]:
    try:
        import timm
    except Exception:  # noqa: BLE001 - timm missing, or incompatible with this torchvision
        return []
    return [
        _image_subject(
            f"timm-{name}",
            lambda name=name, extra=extra: timm.create_model(name, pretrained=False, num_classes=CLASSES, **extra),
        )
        for name, extra in TIMM_MODELS.items()
    ]


def subjects() -> list[Subject]:
    cnns = [
        _image_subject("cnn-batchnorm", lambda: SmallCnn("batch")),
        _image_subject("cnn-groupnorm", lambda: SmallCnn("group")),
    ]
    return _transformers_subjects() + cnns + _timm_subjects()


# -------------------------------------------------------------------- recipes


def on(device: torch.device, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, Mapping):
        return type(value)({key: on(device, item) for key, item in value.items()})
    if isinstance(value, (tuple, list)):
        return type(value)(on(device, item) for item in value)
    return value


def call(model: nn.Module, inputs: Any) -> Any:
    return model(**inputs) if isinstance(inputs, Mapping) else model(inputs)


def adamw(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-3)


def _step(subject: Subject) -> Callable[[nn.Module, torch.optim.Optimizer, Any], None]:
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> None:
        model.train()
        optimizer.zero_grad()
        subject.loss(model, batch).backward()
        optimizer.step()

    return step


def _amp_step(subject: Subject, device: torch.device) -> Callable[..., Any]:
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Any) -> Any:
        model.train()
        optimizer.zero_grad()
        with torch.autocast(device.type, enabled=scaler.is_enabled()):
            loss = subject.loss(model, batch)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        return loss

    return step


def _accumulating(subject: Subject) -> Callable[[nn.Module, torch.optim.Optimizer, list[Any], int], None]:
    def train(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Any], steps: int) -> None:
        model.train()
        optimizer.zero_grad()
        for micro_batch in micro_batches:
            (subject.loss(model, micro_batch) / steps).backward()
        optimizer.step()

    return train


def _saved_once_per_tensor(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict with tied tensors stored once, as save_pretrained/safetensors do."""
    seen: set[int] = set()
    kept = {}
    for key, tensor in model.state_dict(keep_vars=True).items():
        if id(tensor) not in seen:
            seen.add(id(tensor))
            kept[key] = tensor.detach()
    return kept


def _leak_probe(subject: Subject, device: torch.device) -> Callable[[], None]:
    model = subject.make().to(device)
    optimizer = adamw(model)
    batch = on(device, subject.train_batch())
    step = _step(subject)
    return lambda: step(model, optimizer, batch)


def run_check(check: str, subject: Subject, device: torch.device) -> str | None:
    """Run one check; return None when it does not apply here (the reason is in NOTES)."""
    make = lambda: subject.make().to(device)  # noqa: E731
    inputs = on(device, subject.inputs())
    batch = on(device, subject.train_batch())
    cpu_only = device.type == "cpu"
    if check == "assert_reproducible":
        tc.assert_reproducible(lambda: call(make().train(), inputs))
    elif check == "assert_gradcheck":
        return None
    elif check == "assert_gradients_flow":
        tc.assert_gradients_flow(make(), inputs)
    elif check == "assert_batch_independent":
        tc.assert_batch_independent(make().eval(), dict(inputs) if isinstance(inputs, Mapping) else inputs)
    elif check == "assert_amp_step":
        model = make()
        tc.assert_amp_step(_amp_step(subject, device), model, adamw(model), batch, device=device)
    elif check == "assert_checkpoint_roundtrip":
        tc.assert_checkpoint_roundtrip(make, inputs)
    elif check == "assert_resume_equivalent":
        tc.assert_resume_equivalent(make, adamw, _step(subject), [batch] * 4)
    elif check == "assert_accumulation_equivalent":
        tc.assert_accumulation_equivalent(make, adamw, _accumulating(subject), batch, accumulation_steps=2)
    elif check == "assert_optimizer_covers":
        model = make()
        tc.assert_optimizer_covers(model, adamw(model))
    elif check == "meta_shapes":
        tc.meta_shapes(subject.make, subject.inputs())
    elif check == "assert_meta_shapes":
        tc.assert_meta_shapes(subject.make, subject.inputs(), device=device)
    elif check == "assert_meta_load":
        checkpoint = _saved_once_per_tensor(subject.make())
        tc.assert_meta_load(subject.make, checkpoint, subject.inputs(), after_load=subject.after_load)
    elif check == "assert_devices_agree":
        if cpu_only:
            return None
        tc.assert_devices_agree(subject.make, subject.inputs(), devices=["cpu", device])
    elif check == "assert_no_graph_leak":
        tc.assert_no_graph_leak(_leak_probe(subject, device), steps=3)
    elif check == "assert_data_parallel_equivalent":
        if not cpu_only:
            return None
        tc.assert_data_parallel_equivalent(subject.make, adamw, _step(subject), [subject.train_batch()] * 2)
    elif check == "assert_sharded_checkpoint_roundtrip":
        if not cpu_only:
            return None
        tc.assert_sharded_checkpoint_roundtrip(subject.make, adamw)
    else:
        raise ValueError(f"unknown check {check!r}")
    return PASS


NOTES = {
    "assert_gradcheck": GRADCHECK_NOT_FOR_MODELS,
    "assert_devices_agree": ONE_DEVICE,
    "assert_data_parallel_equivalent": CPU_RANKS,
    "assert_sharded_checkpoint_roundtrip": CPU_RANKS,
}


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    cause = next((line for line in lines if line.startswith("Cause")), lines[0] if lines else type(error).__name__)
    return cause[:CAUSE_WIDTH].replace("|", "/")


def cell(check: str, subject: Subject, device: torch.device, details: list[str]) -> str:
    started = time.perf_counter()
    try:
        verdict = run_check(check, subject, device)
    except tc.CheckFailed as failure:
        details.append(f"### {subject.name} / {check} / {device}\n\n```\n{failure}\n```\n")
        return f"FAIL({_first_line(failure)})"
    except Exception as error:  # noqa: BLE001 - a crash of the check is a finding too
        details.append(f"### {subject.name} / {check} / {device} (crashed)\n\n```\n{traceback.format_exc()}\n```\n")
        return f"ERROR({type(error).__name__}: {_first_line(error)})"
    finally:
        elapsed = time.perf_counter() - started
        print(f"  {subject.name:28} {check:38} {device!s:7} {elapsed:6.1f} s", file=sys.stderr, flush=True)
    return NOT_APPLICABLE if verdict is None else verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated subset of model names")
    parser.add_argument("--checks", help="comma-separated subset of checks")
    parser.add_argument("--devices", help="comma-separated subset of device types (default: every available)")
    parser.add_argument("--details", help="write every failure message to this Markdown file")
    options = parser.parse_args(argv)
    chosen = subjects()
    if options.models:
        wanted = set(options.models.split(","))
        chosen = [s for s in chosen if s.name in wanted or s.name.split("-", 1)[-1] in wanted]
    checks = options.checks.split(",") if options.checks else list(CHECKS)
    devices = tc.available_devices()
    if options.devices:
        devices = [d for d in devices if d.type in options.devices.split(",")]
    details: list[str] = []
    totals = {"pass": 0, "FAIL": 0, "ERROR": 0, "n/a": 0}
    print(f"torch {torch.__version__}; devices: {', '.join(map(str, devices))}\n")
    for device in devices:
        print(f"## {device}\n")
        print("| model | " + " | ".join(checks) + " |")
        print("|---" * (len(checks) + 1) + "|")
        for subject in chosen:
            row = [cell(check, subject, device, details) for check in checks]
            for verdict in row:
                totals[verdict.split("(")[0]] += 1
            print(f"| {subject.name} | " + " | ".join(row) + " |", flush=True)
        print()
    run = totals["pass"] + totals["FAIL"] + totals["ERROR"]
    print(f"Totals: {run} checks run, {totals['pass']} passed, {totals['FAIL']} failed, "
          f"{totals['ERROR']} crashed, {totals['n/a']} not applicable.")
    for check, note in NOTES.items():
        print(f"- n/a for {check}: {note}")
    if options.details:
        with open(options.details, "w", encoding="utf-8") as handle:
            handle.write("\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
