"""Run torchcheck's public checks on real, correct models and count the false failures.

Every model here is correct, so every failure is a false failure of the check (or a
property of the model the check reports by design). The models (``_models_zoo.py``):
32 built from tiny transformers configs (no download) and by hand, covering grouped-query,
sliding-window and ALiBi attention, mixtures of experts, state-space and recurrent LMs,
text and audio encoder-decoders, vision and multimodal models, a shared-layer encoder, tied
weights, parametrizations, the hook-based spectral norm, a packed RNN, activation
checkpointing, a compiled submodule and stochastic depth. Each runs on every available
device; the distributed checks start CPU ranks and run once.

    python bench/real_model_checks.py [--models llama-gqa,packed-lstm] [--checks ...] [--devices cpu]
    python bench/real_model_checks.py --timings [--repeat 2]

Prints a Markdown table model x check (pass / FAIL(cause) / n/a, or n/a(reason) where a model
cannot run a check: a forward that cannot run on meta) per device, and totals;
``--timings`` prints each check's time on a ~25k-parameter Llama on CPU instead (target: 5 s).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from torch import nn  # noqa: E402

import torchcheck as tc  # noqa: E402
from torchcheck.checks.meta import NotRunnableOnMeta  # noqa: E402
from _models_zoo import Subject, subjects, timing_subject  # noqa: E402

PASS = "pass"
NOT_APPLICABLE = "n/a"
CAUSE_WIDTH = 90

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
    "assert_inference_contract",
    "assert_data_parallel_equivalent",
    "assert_sharded_checkpoint_roundtrip",
)

#: Why a check does not apply to a whole model (the table says n/a).
GRADCHECK_NOT_FOR_MODELS = "checks custom autograd functions by finite differences, not whole models"
ONE_DEVICE = "needs a second device (runs in the cuda column)"
CPU_RANKS = "starts CPU ranks itself (runs in the cpu column)"


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


def _without_attention_mask(inputs: Any) -> Any:
    """docs/checks.md: leave the mask out on meta (masking reads its values; shapes do not depend on it)."""
    if isinstance(inputs, Mapping) and "attention_mask" in inputs:
        return {key: value for key, value in inputs.items() if key != "attention_mask"}
    return inputs


def _leak_probe(subject: Subject, device: torch.device) -> Callable[[], None]:
    model = subject.make().to(device)
    optimizer = adamw(model)
    batch = on(device, subject.train_batch())
    step = _step(subject)
    return lambda: step(model, optimizer, batch)


def run_check(check: str, subject: Subject, device: torch.device) -> str | None:
    """Run one check; return None when it does not apply here (the reason is in NOTES),
    or ``n/a(reason)`` when it does not apply to this model."""
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
        try:
            tc.meta_shapes(subject.make, _without_attention_mask(subject.inputs()))
        except NotRunnableOnMeta as reason:  # not the model's fault: what cannot run on meta, and why
            return f"{NOT_APPLICABLE}({_first_line(reason)})"
    elif check == "assert_meta_shapes":
        tc.assert_meta_shapes(subject.make, subject.inputs(), device=device)
    elif check == "assert_meta_load":
        checkpoint = subject.checkpoint(subject.make())
        tc.assert_meta_load(subject.make, checkpoint, subject.inputs(), after_load=subject.after_load)
    elif check == "assert_devices_agree":
        if cpu_only:
            return None
        tc.assert_devices_agree(subject.make, subject.inputs(), devices=["cpu", device])
    elif check == "assert_no_graph_leak":
        tc.assert_no_graph_leak(_leak_probe(subject, device), steps=3)
    elif check == "assert_inference_contract":
        tc.assert_inference_contract(make(), inputs)
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


def run_gradcheck(subject: Subject) -> str:
    """The timing table's gradcheck: the whole model and its parameters, with the cost estimate deciding."""
    tc.assert_gradcheck(subject.make(), subject.inputs())
    return PASS


def timings(repeat: int) -> int:
    """Each check's wall time on a ~25k-parameter Llama on CPU, in this one process."""
    subject = timing_subject()
    parameters = sum(p.numel() for p in subject.make().parameters())
    cpu = torch.device("cpu")
    print(f"## Timings: {subject.name} ({parameters} parameters), cpu, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads\n")
    print("| check | verdict | seconds (each run) | over 5 s |")
    print("|---|---|---|---|")
    slow = 0
    for check in CHECKS:
        seconds, verdicts = [], []
        for _ in range(repeat):
            started = time.perf_counter()
            try:
                verdict = run_gradcheck(subject) if check == "assert_gradcheck" else run_check(check, subject, cpu)
                verdicts.append(NOT_APPLICABLE if verdict is None else verdict)
            except Exception as error:  # noqa: BLE001 - the timing of a failing check still counts
                verdicts.append(f"{type(error).__name__}({_first_line(error)})")
            seconds.append(time.perf_counter() - started)
        over = max(seconds) > 5.0
        slow += over
        times = ", ".join(f"{value:.2f}" for value in seconds)
        print(f"| {check} | {verdicts[-1]} | {times} | {'**yes**' if over else 'no'} |", flush=True)
    print(f"\n{slow} of {len(CHECKS)} checks over 5 s.")
    return 0


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    cause = next((line for line in lines if line.startswith("Cause")), lines[0] if lines else type(error).__name__)
    return cause[:CAUSE_WIDTH].replace("|", "/")


def cell(check: str, subject: Subject, device: torch.device, details: list[str]) -> str:
    started = time.perf_counter()
    try:
        verdict = run_check(check, subject, device)
    except tc.NotApplicable as reason:  # the check cannot run on this model, and says why
        return f"{NOT_APPLICABLE}({_first_line(reason)})"
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
    parser.add_argument("--timings", action="store_true",
                        help="time each check on a ~25k-parameter transformers model on CPU instead")
    parser.add_argument("--repeat", type=int, default=1, help="runs per check with --timings")
    options = parser.parse_args(argv)
    if options.timings:
        return timings(options.repeat)
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
            _write_details(options.details, details)  # after every row: a run stopped early keeps them
        print()
    run = totals["pass"] + totals["FAIL"] + totals["ERROR"]
    print(f"Totals: {run} checks run, {totals['pass']} passed, {totals['FAIL']} failed, "
          f"{totals['ERROR']} crashed, {totals['n/a']} not applicable.")
    for check, note in NOTES.items():
        print(f"- n/a for {check}: {note}")
    return 0


def _write_details(path: str | None, details: list[str]) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(details))


if __name__ == "__main__":
    sys.exit(main())
