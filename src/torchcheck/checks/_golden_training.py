"""Training a curve: :func:`run_training`, the :class:`TrainingCurve` it returns, and the
:class:`GoldenKey` of the machine and regime it ran in.

Everything a curve depends on is pinned for the run and put back afterwards: the seed,
deterministic algorithms, cuDNN benchmark off, TF32 (matmul and cuDNN), and on CPU the intra-op
thread count (CPU results differ bitwise between 1 and 2 threads).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import os
import platform
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import callable_name
from torchcheck.checks._golden_format import GoldenKey, GoldenRecord, slug
from torchcheck.checks._inputs import instantiate
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.seeding import seeded

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["OPTIONAL_METRICS", "TrainingCurve", "golden_key", "run_training"]

OPTIONAL_METRICS = ("param_norm", "update_norm")
_PRECISIONS = {torch.float64: "float64", torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}
_NOT_DETERMINISTIC = """\
run_training: {step_fn} uses an operation without a deterministic implementation at step \
{step}, and golden curves run with deterministic algorithms:
  {error}
Use a deterministic alternative for it."""
_BAD_INITIAL_STATE = """\
run_training: the seed checkpoint no longer loads into the model (the model changed): \
{problems}. Record the seed checkpoint again from the current model."""
_STEP_RETURNED = (
    "run_training: step_fn must return the loss (a number or a one-element tensor) or a dict "
    "with a 'loss' key; step {step} returned {what}"
)
_METRIC_KEYS_CHANGED = "run_training: step_fn returned the metrics {now} at step {step}, but {before} at step 1"


# --- keys -------------------------------------------------------------------------


def golden_key(
    device: torch.device | str | None = None,
    *,
    dtype: torch.dtype = torch.float32,
    world_size: int = 1,
    tf32: bool = False,
    detail: str = "capability",
) -> GoldenKey:
    """The key a curve trained on ``device`` in ``dtype`` gets: device type, hardware
    (CUDA ``sm90``, ROCm ``gfx942``, CPU capability ``avx2``/``avx512``/...), precision
    (``tf32`` when TF32 was on for float32), world size and torch minor. ``detail="name"``
    adds the device name (``Exact()`` on CUDA implies it)."""
    if detail not in ("capability", "name"):
        raise ValueError(f"detail must be 'capability' or 'name', got {detail!r}")
    if dtype not in _PRECISIONS:
        raise ValueError(f"golden curves are keyed by a floating dtype ({', '.join(_PRECISIONS.values())}), got {dtype}")
    device = _device(device)
    precision = "tf32" if tf32 and dtype == torch.float32 else _PRECISIONS[dtype]
    key = GoldenKey(
        device=_device_type(device),
        hardware=_hardware(device),
        precision=precision,
        world_size=int(world_size),
        torch=_torch_minor(),
    )
    return key.with_name(_device_name(device)) if detail == "name" else key


def _device(device: torch.device | str | None) -> torch.device:
    if device is None:
        return torch.get_default_device()
    return torch.device(device)


def _device_type(device: torch.device) -> str:
    if device.type == "cuda" and torch.version.hip:
        return "rocm"
    return device.type


def _torch_minor() -> str:
    return ".".join(torch.__version__.split("+")[0].split(".")[:2])


def _hardware(device: torch.device) -> str:
    if device.type == "cpu":
        return torch.backends.cpu.get_cpu_capability().lower()
    if device.type == "cuda":
        properties = torch.cuda.get_device_properties(device)
        if torch.version.hip:
            return slug(str(getattr(properties, "gcnArchName", "gfx")).split(":")[0])
        return f"sm{properties.major}{properties.minor}"
    if device.type == "mps":
        return _mac_chip().replace("apple-", "", 1)
    return slug(_device_name(device))


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "cpu":
        return _cpu_name()
    if device.type == "mps":
        return _mac_chip()
    backend = getattr(torch, device.type, None)
    get_name = getattr(backend, "get_device_name", None)
    return str(get_name(device)) if callable(get_name) else device.type


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def _mac_chip() -> str:
    try:
        brand = subprocess.run(
            ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        brand = "apple"
    return slug(brand or "apple")


# --- the curve --------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingCurve:
    """What :func:`run_training` recorded: one row per step, the key of the machine and
    regime it ran in, and hashes of the batches and the initial weights."""

    key: GoldenKey
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    recorded: Mapping[str, Any]
    init_sha256: str
    data_sha256: str
    modules: Mapping[str, float] | None = None
    name: str | None = None
    rerun: Callable[[], TrainingCurve] | None = field(default=None, compare=False, repr=False)

    @property
    def steps(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Any]:
        """One column's values, step 1 first (``None`` where GradScaler skipped a step)."""
        return [row[self.columns.index(name)] for row in self.rows]

    @property
    def losses(self) -> list[float]:
        return self.column("loss")

    def as_record(self, name: str | None = None) -> GoldenRecord:
        return GoldenRecord(
            curve=name or self.name or "",
            key=self.key,
            columns=self.columns,
            rows=self.rows,
            recorded=self.recorded,
            init_sha256=self.init_sha256,
            data_sha256=self.data_sha256,
            modules=self.modules,
        )


def run_training(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    step_fn: Callable[..., Any],
    batches: Iterable[Any],
    *,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
    seed: int = 0,
    initial_state: Mapping[str, torch.Tensor] | str | os.PathLike[str] | None = None,
    metrics: Sequence[str] | None = None,
    scaler: Callable[[], Any] | None = None,
    tf32: bool = False,
    threads: int | None = None,
    record_modules: bool = False,
    steps: int | None = None,
) -> TrainingCurve:
    """Train ``len(batches)`` (or ``steps``) steps of ``step_fn(model, optimizer, batch)``
    (``step_fn(model, optimizer, scaler, batch)`` with ``scaler=``, a GradScaler factory)
    and record per step: ``loss`` (what ``step_fn`` returns; a dict adds its other keys as
    columns), ``grad_norm`` (float64 L2 norm of the gradients when ``optimizer.step`` runs,
    so after unscaling and clipping; ``None`` when the step was skipped), ``lr``,
    ``loss_scale`` (with ``scaler``), and ``param_norm``/``update_norm`` when ``metrics``
    asks for them.

    Runs under :func:`~torchcheck.seeded` (``seed``, deterministic algorithms, cuDNN
    benchmark off), TF32 as ``tf32`` says, and on CPU one intra-op thread unless ``threads``
    says otherwise; everything is restored afterwards. The model is built (and
    ``initial_state``, a state dict or a path, loaded) before it moves to ``device`` (default:
    where ``make_model`` put it) and, without ``scaler``, to ``dtype`` (floating batch tensors
    too); with ``scaler``, ``dtype`` names the autocast dtype of the step for the key.
    ``make_optimizer`` may return ``(optimizer, scheduler)``; the scheduler steps after each
    step. ``record_modules`` stores every module's output L1 norm at step 1.
    """
    extra_metrics = _checked_metrics(metrics)
    run = functools.partial(
        _train,
        make_model,
        make_optimizer,
        step_fn,
        dtype=dtype,
        seed=seed,
        initial_state=initial_state,
        extra_metrics=extra_metrics,
        make_scaler=scaler,
        tf32=tf32,
        record_modules=record_modules,
    )
    with seeded(seed, deterministic=True):
        taken = _take(batches, steps)  # under the seed: a shuffling DataLoader draws seeded
    model_device = _device(device) if device is not None else None
    curve = run(taken, model_device, threads)
    return dataclasses.replace(curve, rerun=lambda: run(taken, model_device, threads))


def _checked_metrics(metrics: Sequence[str] | None) -> tuple[str, ...]:
    if metrics is None:
        return ()
    if isinstance(metrics, str):
        metrics = (metrics,)
    unknown = [m for m in metrics if m not in OPTIONAL_METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(map(repr, unknown))}; run_training records {', '.join(OPTIONAL_METRICS)} on request")
    return tuple(m for m in OPTIONAL_METRICS if m in metrics)


def _take(batches: Iterable[Any] | Callable[[int, int], Iterable[Any]], steps: int | None) -> list[Any]:
    if callable(batches) and not isinstance(batches, Sequence):
        if world_size() == 1:
            raise TypeError(
                "batches must be a sequence or an iterable of batches (per-rank batches(rank, world_size) "
                "need a process group: a test marked @pytest.mark.distributed)"
            )
        batches = batches(torch.distributed.get_rank(), world_size())
    if steps is not None and (not isinstance(steps, int) or steps < 1):
        raise ValueError(f"steps must be a positive number of steps, got {steps!r}")
    taken = []
    for batch in batches:
        if steps is not None and len(taken) == steps:
            break
        taken.append(batch)
    if not taken:
        raise ValueError("run_training needs at least one batch")
    if steps is not None and len(taken) < steps:
        raise ValueError(f"steps={steps} but batches holds only {len(taken)}")
    return taken


def _train(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    step_fn: Callable[..., Any],
    batches: list[Any],
    device: torch.device | None,
    threads: int | None,
    *,
    dtype: torch.dtype | None,
    seed: int,
    initial_state: Any,
    extra_metrics: tuple[str, ...],
    make_scaler: Callable[[], Any] | None,
    tf32: bool,
    record_modules: bool,
) -> TrainingCurve:
    with seeded(seed, deterministic=True):
        _set_tf32(tf32)
        data_sha256 = _every_ranks_sha256(_sha256_of_tensors(batches))
        model = instantiate(make_model)
        if initial_state is not None:
            _load_initial_state(model, initial_state)
        init_sha256 = _sha256_of_tensors(model.state_dict())
        device = device or _model_device(model)
        threads = 1 if threads is None and device.type == "cpu" else threads
        if threads is not None:
            torch.set_num_threads(threads)
        precision = dtype or _model_dtype(model)
        cast = dtype if make_scaler is None else None
        model.to(device=device, dtype=cast)
        optimizer, scheduler = _split_optimizer(make_optimizer(model))
        scaler = make_scaler() if make_scaler is not None else None
        recorder = _StepRecorder(model, optimizer, extra_metrics, scaler, record_modules)
        try:
            for step, batch in enumerate(batches, start=1):
                on_device = _to_device(batch, device, cast)
                recorder.step(step, lambda b=on_device: _call_step(step_fn, model, optimizer, scaler, b), step_fn)
                if scheduler is not None:
                    scheduler.step()
        finally:
            recorder.close()
        columns, rows = recorder.table()
    return TrainingCurve(
        key=golden_key(device, dtype=precision, world_size=world_size(), tf32=tf32),
        columns=columns,
        rows=rows,
        recorded=_recorded(device, tf32=tf32, threads=threads, seed=seed),
        init_sha256=init_sha256,
        data_sha256=data_sha256,
        modules=recorder.module_norms(),
    )


def _set_tf32(tf32: bool) -> None:
    # cuDNN's allow_tf32 is on by default: set both, so the run is what the key says.
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


def _split_optimizer(made: Any) -> tuple[torch.optim.Optimizer, Any | None]:
    if isinstance(made, tuple):
        optimizer, scheduler = made
        return optimizer, scheduler
    return made, None


def _call_step(step_fn: Callable[..., Any], model: nn.Module, optimizer: Any, scaler: Any, batch: Any) -> Any:
    if scaler is not None:
        return step_fn(model, optimizer, scaler, batch)
    return step_fn(model, optimizer, batch)


def _model_device(model: nn.Module) -> torch.device:
    for tensor in (*model.parameters(), *model.buffers()):
        return tensor.device
    return torch.device("cpu")


def _model_dtype(model: nn.Module) -> torch.dtype:
    for parameter in model.parameters():
        if parameter.is_floating_point():
            return parameter.dtype
    return torch.float32


def _load_initial_state(model: nn.Module, initial_state: Any) -> None:
    if isinstance(initial_state, (str, os.PathLike)):
        initial_state = torch.load(initial_state, map_location="cpu", weights_only=True)
    result = model.load_state_dict(initial_state, strict=False)
    problems = []
    if result.missing_keys:
        problems.append(f"missing keys {', '.join(result.missing_keys[:5])}")
    if result.unexpected_keys:
        problems.append(f"unexpected keys {', '.join(result.unexpected_keys[:5])}")
    if problems:
        raise CheckFailed(_BAD_INITIAL_STATE.format(problems="; ".join(problems)))


def _to_device(batch: Any, device: torch.device, dtype: torch.dtype | None) -> Any:
    if isinstance(batch, torch.Tensor):
        if dtype is not None and batch.is_floating_point():
            return batch.to(device=device, dtype=dtype)
        return batch.to(device)
    if isinstance(batch, Mapping):
        return {key: _to_device(value, device, dtype) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(_to_device(v, device, dtype) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to_device(v, device, dtype) for v in batch)
    return batch


def _sha256_of_tensors(value: Any) -> str:
    """Hash of every tensor's dtype, shape and bytes (and every other leaf's repr), in order."""
    digest = hashlib.sha256()
    _feed(digest, value)
    return digest.hexdigest()


def _feed(digest: Any, value: Any) -> None:
    if isinstance(value, torch.Tensor):
        data = value.detach()
        if data.is_complex():
            data = torch.view_as_real(data)
        data = data.to("cpu").contiguous().reshape(-1).clone()
        digest.update(f"{data.dtype}{tuple(value.shape)}".encode())
        digest.update(bytes(data.view(torch.uint8).untyped_storage()) if data.numel() else b"")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            digest.update(repr(key).encode())
            _feed(digest, item)
    elif isinstance(value, (list, tuple)):
        digest.update(b"[")
        for item in value:
            _feed(digest, item)
        digest.update(b"]")
    else:
        digest.update(repr(value).encode())


def _every_ranks_sha256(own: str) -> str:
    """One digest of every rank's data, so that the golden notices a change on any rank."""
    if world_size() == 1:
        return own
    digests: list[Any] = [None] * world_size()
    torch.distributed.all_gather_object(digests, own)
    return hashlib.sha256("".join(digests).encode()).hexdigest()


def world_size() -> int:
    """The size of the default process group; 1 outside one."""
    distributed = torch.distributed
    if distributed.is_available() and distributed.is_initialized():
        return distributed.get_world_size()
    return 1


class _StepRecorder:
    """Hooks on the optimizer (and, for step 1, on every module) that record one row per step.

    Gradient norms are kept on the device and read once at the end: the loss's ``.item()``
    is the only host synchronisation a step gains."""

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        extra_metrics: tuple[str, ...],
        scaler: Any,
        record_modules: bool,
    ) -> None:
        self.model, self.optimizer, self.extra, self.scaler = model, optimizer, extra_metrics, scaler
        self.rows: list[dict[str, Any]] = []
        self.user_metrics: tuple[str, ...] | None = None
        self._current: dict[str, Any] = {}
        self._before_update: list[torch.Tensor] | None = None
        self._handles = [optimizer.register_step_pre_hook(self._before_optimizer_step)]
        self._module_norms: dict[str, torch.Tensor] = {}
        self._module_handles = []
        if record_modules:
            for name, module in model.named_modules():
                self._module_handles.append(module.register_forward_hook(functools.partial(self._module_output, name or "(model)")))

    def _parameters(self) -> list[torch.Tensor]:
        return [p for group in self.optimizer.param_groups for p in group["params"]]

    def _before_optimizer_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        grads = [_full(p.grad) for p in self._parameters() if p.grad is not None]
        self._current["grad_norm"] = _total_norm(grads)
        self._current["lr"] = float(optimizer.param_groups[0]["lr"])
        if "update_norm" in self.extra:
            self._before_update = [p.detach().clone() for p in self._parameters()]

    def _module_output(self, name: str, module: nn.Module, args: Any, output: Any) -> None:
        if name in self._module_norms:
            return
        tensors = [t for t in _tensor_leaves(output) if t.is_floating_point()]
        if tensors:
            self._module_norms[name] = sum(_full(t).detach().double().abs().sum() for t in tensors)

    def step(self, step: int, run: Callable[[], Any], step_fn: Callable[..., Any]) -> None:
        self._current, self._before_update = {"grad_norm": None}, None
        try:
            returned = run()
        except RuntimeError as error:
            if "deterministic" not in str(error):
                raise
            raise CheckFailed(_NOT_DETERMINISTIC.format(step_fn=callable_name(step_fn), step=step, error=error)) from error
        finally:
            for handle in self._module_handles:
                handle.remove()
            self._module_handles = []
        self._current.update(self._metrics_of(returned, step))
        if "lr" not in self._current:
            self._current["lr"] = float(self.optimizer.param_groups[0]["lr"])
        if self.scaler is not None:
            self._current["loss_scale"] = float(self.scaler.get_scale())
        if "param_norm" in self.extra:
            self._current["param_norm"] = _total_norm([_full(p) for p in self._parameters()])
        if "update_norm" in self.extra:
            self._current["update_norm"] = self._update_norm()
        self.rows.append(self._current)

    def _update_norm(self) -> Any:
        if self._before_update is None:
            return None
        with torch.no_grad():
            return _total_norm([_full(p) - _full(b) for p, b in zip(self._parameters(), self._before_update)])

    def _metrics_of(self, returned: Any, step: int) -> dict[str, float]:
        if isinstance(returned, Mapping):
            if "loss" not in returned:
                raise TypeError(_STEP_RETURNED.format(step=step, what=f"a dict without 'loss' (keys {', '.join(map(repr, returned))})"))
            values = {"loss": returned["loss"], **{k: v for k, v in returned.items() if k != "loss"}}
        else:
            values = {"loss": returned}
        names = tuple(k for k in values if k != "loss")
        if self.user_metrics is None:
            self.user_metrics = names
        elif names != self.user_metrics:
            raise TypeError(_METRIC_KEYS_CHANGED.format(now=list(names), step=step, before=list(self.user_metrics)))
        return {name: _scalar(value, step, name) for name, value in values.items()}

    def close(self) -> None:
        for handle in (*self._handles, *self._module_handles):
            handle.remove()

    def table(self) -> tuple[tuple[str, ...], tuple[tuple[Any, ...], ...]]:
        columns = ["step", "loss", "grad_norm", "lr"]
        columns += ["loss_scale"] if self.scaler is not None else []
        columns += list(self.extra) + list(self.user_metrics or ())
        rows = []
        for step, values in enumerate(self.rows, start=1):
            rows.append((step, *(_host(values.get(column)) for column in columns[1:])))
        return tuple(columns), tuple(rows)

    def module_norms(self) -> dict[str, float] | None:
        if not self._module_norms:
            return None
        return {name: float(norm) for name, norm in self._module_norms.items()}


def _full(tensor: torch.Tensor) -> torch.Tensor:
    """A DTensor's (FSDP2's) full value: the norm of a local shard is not the model's."""
    full_tensor = getattr(tensor, "full_tensor", None)
    return full_tensor() if callable(full_tensor) else tensor


def _total_norm(tensors: list[torch.Tensor]) -> torch.Tensor | None:
    if not tensors:
        return None
    with torch.no_grad():
        device = tensors[0].device
        squares = [t.detach().to(device=device, dtype=torch.float64).pow(2).sum() for t in tensors]
        return torch.stack(squares).sum().sqrt()


def _tensor_leaves(value: Any) -> Iterable[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _tensor_leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensor_leaves(item)


def _scalar(value: Any, step: int, name: str) -> float:
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise TypeError(_STEP_RETURNED.format(step=step, what=f"{name!r} as a tensor of shape {tuple(value.shape)}"))
        loss = float(value.detach().item())
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        loss = float(value)
    else:
        raise TypeError(_STEP_RETURNED.format(step=step, what=f"{name!r} as {type(value).__name__}"))
    ranks = world_size()
    if ranks > 1 and name == "loss":
        total = torch.tensor([loss], dtype=torch.float64, device=value.device if isinstance(value, torch.Tensor) else "cpu")
        torch.distributed.all_reduce(total)
        loss = float(total.item()) / ranks
    return loss


def _host(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return float(value.item())
    return value


def _recorded(device: torch.device, *, tf32: bool, threads: int | None, seed: int) -> dict[str, Any]:
    import torchcheck

    recorded: dict[str, Any] = {"device_name": _device_name(device)}
    if device.type == "cuda":
        properties = torch.cuda.get_device_properties(device)
        recorded["sm_count"] = properties.multi_processor_count
        recorded["cuda"] = torch.version.cuda
        recorded["cudnn"] = torch.backends.cudnn.version()
        if torch.version.hip:
            recorded["rocm"] = torch.version.hip
    recorded.update(
        torch=torch.__version__,
        python=platform.python_version(),
        tf32=tf32,
        threads=threads,
        deterministic=True,
        seed=seed,
        git_commit=_git_commit(),
        date=datetime.date.today().isoformat(),
        torchcheck=torchcheck.__version__,
    )
    return recorded


def _git_commit() -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    return result.stdout.strip() or None
