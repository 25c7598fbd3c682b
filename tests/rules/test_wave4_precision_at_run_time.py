"""TCK311, TCK312 and TCK313 against PyTorch itself: the low-precision code each rule reports
silently loses gradients, loss precision or updates when run, and the correction lints clean
and does not.

Every snippet runs on the CPU and is linted exactly as it is run: the device is chosen as
training scripts choose it (``"cuda" if torch.cuda.is_available() else "cpu"``), which is
CUDA on some path for the linter and the CPU here.
"""

from __future__ import annotations

import pytest

from tests.rules.examples import codes_reported, run_snippet

# ---------------------------------------------------------------- TCK311 fp16-autocast-without-scaler
# A loss whose gradients are small (1e-3 of a unit loss): in float16 they flush to zero.
_FP16_STEP = """
import torch

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(64, 64)
x = torch.randn(32, 64)
{scaler}with torch.autocast(device, dtype={dtype}):
    loss = model(x).square().mean() * 1e-6
{backward}
grad = model.weight.grad
"""
FP16_WITHOUT_SCALER = _FP16_STEP.format(scaler="", dtype="torch.float16", backward="loss.backward()")
FP16_WITH_SCALER = _FP16_STEP.format(
    scaler="scaler = torch.amp.GradScaler(device, init_scale=2.0**10)\n",
    dtype="torch.float16",
    backward="scaler.scale(loss).backward()\nscaler.unscale_(torch.optim.SGD(model.parameters(), lr=0.1))",
)
BF16_WITHOUT_SCALER = _FP16_STEP.format(scaler="", dtype="torch.bfloat16", backward="loss.backward()")


def _reference_gradient() -> object:
    """The same step in float32, without autocast."""
    source = _FP16_STEP.format(scaler="", dtype="torch.float16", backward="loss.backward()")
    return run_snippet(source.replace("torch.autocast(device,", "torch.autocast(device, enabled=False,"))["grad"]


def test_float16_autocast_without_a_scaler_is_reported_and_its_gradients_flush_to_zero() -> None:
    assert codes_reported(FP16_WITHOUT_SCALER, "TCK311") == ["TCK311"]
    grad = run_snippet(FP16_WITHOUT_SCALER)["grad"]
    reference = _reference_gradient()
    assert reference.abs().max() > 0
    zeroed = ((grad == 0) & (reference != 0)).float().mean().item()
    assert zeroed > 0.5, f"only {zeroed:.0%} of the gradient flushed to zero"


@pytest.mark.parametrize("source", [FP16_WITH_SCALER, BF16_WITHOUT_SCALER], ids=["grad-scaler", "bfloat16"])
def test_a_scaler_or_bfloat16_is_silent_and_keeps_the_gradients(source: str) -> None:
    import torch

    assert codes_reported(source, "TCK311") == []
    grad = run_snippet(source)["grad"]
    reference = _reference_gradient()
    zeroed = ((grad == 0) & (reference != 0)).float().mean().item()
    assert zeroed < 0.01
    torch.testing.assert_close(grad, reference, rtol=0.1, atol=reference.abs().max().item() * 0.05)


# ---------------------------------------------------------------- TCK312 low-precision-cross-entropy
_BF16_LOSS = """
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Linear(64, 32000).to(torch.bfloat16)
x = (torch.randn(8, 64) * 4).to(torch.bfloat16)
y = torch.randint(0, 32000, (8,))
logits = model(x)
loss = F.cross_entropy({logits}, y)
exact = F.cross_entropy(logits.detach().double(), y)
"""
CROSS_ENTROPY_ON_BF16_LOGITS = _BF16_LOSS.format(logits="logits")
CROSS_ENTROPY_ON_UPCAST_LOGITS = _BF16_LOSS.format(logits="logits.float()")


def test_cross_entropy_on_bfloat16_logits_is_reported_and_the_loss_is_quantised() -> None:
    import torch

    assert codes_reported(CROSS_ENTROPY_ON_BF16_LOGITS, "TCK312") == ["TCK312"]
    namespace = run_snippet(CROSS_ENTROPY_ON_BF16_LOGITS)
    loss, exact = namespace["loss"], namespace["exact"]
    assert loss.dtype == torch.bfloat16
    assert abs(loss.item() - exact.item()) > 1e-3  # off by a step of the bfloat16 grid


def test_cross_entropy_on_upcast_logits_is_silent_and_exact() -> None:
    import torch

    assert codes_reported(CROSS_ENTROPY_ON_UPCAST_LOGITS, "TCK312") == []
    namespace = run_snippet(CROSS_ENTROPY_ON_UPCAST_LOGITS)
    loss, exact = namespace["loss"], namespace["exact"]
    assert loss.dtype == torch.float32
    assert abs(loss.item() - exact.item()) < 1e-5


# ---------------------------------------------------------------- TCK313 low-precision-params-plain-optimizer
_PLAIN_OPTIMIZER = """
import torch

torch.manual_seed(0)
model = torch.nn.Linear(64, 64){cast}
with torch.no_grad():
    model.weight.fill_(1.0)
before = model.weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(32, 64){input_cast}
for _ in range(20):
    optimizer.zero_grad()
    model(x).float().square().mean().backward()
    optimizer.step()
moved = (model.weight.detach() != before).float().mean().item()
"""
BF16_PARAMETERS_PLAIN_SGD = _PLAIN_OPTIMIZER.format(cast=".bfloat16()", input_cast=".bfloat16()")
FP32_PARAMETERS_PLAIN_SGD = _PLAIN_OPTIMIZER.format(cast="", input_cast="")


def test_a_plain_optimizer_over_bfloat16_parameters_is_reported_and_no_weight_moves() -> None:
    assert codes_reported(BF16_PARAMETERS_PLAIN_SGD, "TCK313") == ["TCK313"]
    assert run_snippet(BF16_PARAMETERS_PLAIN_SGD)["moved"] == 0.0  # every update rounded away


def test_a_plain_optimizer_over_float32_parameters_is_silent_and_every_weight_moves() -> None:
    assert codes_reported(FP32_PARAMETERS_PLAIN_SGD, "TCK313") == []
    assert run_snippet(FP32_PARAMETERS_PLAIN_SGD)["moved"] == 1.0
