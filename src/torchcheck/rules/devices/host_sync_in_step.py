from __future__ import annotations

import libcst as cst

from torchcheck.lint.kinds import TENSOR_KINDS
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.devices._common import PerStepCallRule

_SYNC_METHODS = frozenset({"item", "cpu", "numpy", "tolist"})


class HostSyncInStep(PerStepCallRule):
    """
    ## What it does
    Checks for `.item()`, `.cpu()`, `.numpy()` and `.tolist()` called on every step of a
    training loop (a loop that calls `.backward()`), outside a logging condition such as
    `if step % log_every == 0`.

    ## Why is this bad?
    CUDA kernels run asynchronously: Python queues work and moves on while the GPU catches
    up. Reading a value on the host makes the CPU wait until every queued kernel has
    finished, so the GPU then idles while Python prepares the next step. One such call per
    step can cost a large share of the throughput. Keep running statistics on the device
    (`running_loss += loss.detach()`) and read them only when logging.

    ## Example
    ```python
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item()
    ```

    Use instead:
    ```python
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += loss.detach()
        if step % log_every == 0:
            print(total.item() / (step + 1))
    ```

    ## Fix safety
    There is no automatic fix: keeping the value on the device changes its type from a
    Python number to a tensor, which the code after it may not accept.

    ## References
    - [CUDA semantics: asynchronous execution](https://pytorch.org/docs/stable/notes/cuda.html#asynchronous-execution)
    - [Performance tuning guide: avoid unnecessary CPU-GPU synchronization](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#avoid-unnecessary-cpu-gpu-synchronization)
    """

    code = "TCK205"
    name = "host-sync-in-step"
    message = "Reading a tensor on the host every training step stalls the GPU; read it only when logging"
    default_enabled = False
    required_text = ("backward",)

    VALID = (
        Valid(
            """
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if step % 100 == 0:
        print(f"step {step}: loss {loss.item():.4f}")
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if should_log:
        logger.info("loss %f", loss.item())
model.cpu()
"""
        ),
        Valid(
            """
import torch
for epoch in range(epochs):
    for x, y in train_loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    with torch.no_grad():
        correct = 0
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    print(epoch, loss.item(), correct)
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    model.cpu()
    self.model.cpu()
    shadow = rpc.get_model()
    grads = [p.grad for p in shadow.cpu().parameters()]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
total = 0.0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total += loss.item()  # TCK205
"""
        ),
        Invalid(
            """
for step, (x, y) in enumerate(loader):
    out = model(x)
    loss = criterion(out, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    preds.extend(out.argmax(1).cpu().numpy())  # TCK205
    targets.extend(y.cpu().numpy())  # TCK205
    if step % 10 == 0:
        print(loss.item())
    else:
        history.append(loss.tolist())  # TCK205
"""
        ),
    )

    def is_candidate(self, call: cst.Call) -> bool:
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _SYNC_METHODS or call.args:
            return False
        if self._follows_a_sync(func.value):
            return False
        kind = self.context.kind_of(func.value)
        if func.attr.value == "cpu":
            return kind in TENSOR_KINDS  # `m.cpu()` moves a module as often as a tensor
        return kind is None or kind in TENSOR_KINDS

    def _follows_a_sync(self, expression: cst.BaseExpression) -> bool:
        """``x.cpu().numpy()``: the inner ``.cpu()`` already waits for the GPU (one finding)."""
        while isinstance(expression, (cst.Call, cst.Attribute, cst.Subscript)):
            if isinstance(expression, cst.Call):
                func = expression.func
                if isinstance(func, cst.Attribute) and func.attr.value in _SYNC_METHODS:
                    # an unknown receiver's `.cpu()` is not reported: the outer call is
                    return func.attr.value != "cpu" or self.context.kind_of(func.value) in TENSOR_KINDS
                expression = func
            else:
                expression = expression.value
        return False
