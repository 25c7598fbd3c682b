from __future__ import annotations

from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.deprecations._symbols import SymbolCallRule


class DeprecatedApiUse(SymbolCallRule):
    """
    ## What it does
    Checks for calls of deprecated PyTorch functions and classes: the pre-`torch.linalg`
    linear algebra functions (`torch.qr`, `torch.cholesky`, `torch.svd`, `torch.norm`,
    `torch.lu`, ...), `torch.range`, `torch.ger`, `torch.nn.utils.weight_norm`,
    `torch.backends.cuda.sdp_kernel`, `torch.testing.assert_allclose`,
    `torch.set_default_tensor_type`, `functorch.*` (now `torch.func`) and others, and the
    tensor methods that run a deprecated function and warn like it (`x.qr()`,
    `x.cholesky()`, `x.svd()` on a tensor).

    ## Why is this bad?
    Deprecated functions are removed in a later release (several of their siblings already
    were: see TCK901), and many warn on every call until then. Some also behave
    surprisingly: `torch.range` includes its end point, unlike Python's `range` and
    `torch.arange`; `torch.svd` returns `V` where `torch.linalg.svd` returns `V^H`. The
    message names the replacement and, where it is more than a rename, how to migrate.

    The deprecated names, the pull request or release that deprecated each one, the
    replacement and the PyTorch version that introduced it live in one table
    (`symbols.toml`). With a `target-version` older than that version the name is not
    reported. Calls in compatibility code (an `except` handler, or an `if` that tests the
    PyTorch version) are left alone.

    ## Example
    ```python
    import functorch
    import torch

    outer = torch.ger(a, b)
    lower = torch.cholesky(covariance)
    batched = functorch.vmap(f)(x)
    ```

    Use instead:
    ```python
    import torch

    outer = torch.outer(a, b)
    lower = torch.linalg.cholesky(covariance)
    batched = torch.func.vmap(f)(x)
    ```

    ## Fix safety
    The fix renames the call only where the replacement is a drop-in for it: the same
    arguments with the same meaning (`torch.ger` -> `torch.outer`, `functorch.vmap` ->
    `torch.func.vmap`, `torch.cholesky(A)` -> `torch.linalg.cholesky(A)` with no
    `upper=`). The new name is spelled through the alias the call already uses, or through
    `torch` when it is imported; otherwise there is no fix.

    ## References
    - [`torch.linalg`](https://pytorch.org/docs/stable/linalg.html)
    - [Migrating from functorch to `torch.func`](https://pytorch.org/docs/stable/func.migrating.html)
    - [`torch.range`](https://pytorch.org/docs/stable/generated/torch.range.html)
    """

    code = "TCK903"
    name = "deprecated-api-use"
    message = "Call of a deprecated PyTorch function"
    template = "`{name}` is deprecated; {advice}"
    fix_title = "Use the replacement"
    fix_safety = FixSafety.SAFE
    status = "deprecated"
    torchfix_codes = ("TOR101",)

    VALID = (
        Valid(
            """
from torch import nn
if hasattr(nn.utils.parametrizations, "weight_norm"):
    weight_norm = nn.utils.parametrizations.weight_norm
else:
    weight_norm = nn.utils.weight_norm
layer = weight_norm(nn.Conv1d(8, 8, 3), name="weight")
"""
        ),
        Valid(
            """
import torch
outer = torch.outer(a, b)
positions = torch.arange(0, n)
Q, R = torch.linalg.qr(A)
total = torch.linalg.vector_norm(x, dim=-1)
length = x.norm(dim=-1)
"""
        ),
        Valid(
            """
import numpy as np
import torch

def decompose(matrix: np.ndarray, factorizer):
    q, r = np.linalg.qr(matrix)
    return factorizer.qr(q), factorizer.svd(r)
"""
        ),
        Valid(
            """
import torch
def upsample(x):
    return torch.nn.functional.interpolate(x, scale_factor=2)

for index in range(10):
    pass
norm = torch.nn.LayerNorm(8)
"""
        ),
        Valid(
            """
import torch
if hasattr(torch.nn.utils, "parametrizations"):
    conv = torch.nn.utils.parametrizations.weight_norm(conv)
else:
    conv = torch.nn.utils.weight_norm(conv)
"""
        ),
        Valid(
            """
try:
    from torch.func import vmap
except ImportError:
    from functorch import vmap
batched = vmap(f)(x)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

def orthonormal_complement(x, rows):
    n = torch.empty(x.shape[:-1] + (rows,), dtype=x.dtype, device=x.device).normal_()
    n = n - x @ (x.transpose(-2, -1) @ n)
    return n.qr().Q  # TCK903
"""
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
outer = torch.ger(a, b)  # TCK903
L = torch.cholesky(A)  # TCK903
U = torch.cholesky(A, upper=True)  # TCK903
steps = torch.range(0, 10)  # TCK903
y = F.upsample(x, scale_factor=2, mode="nearest")  # TCK903
""",
            expected_replacement="""
import torch
import torch.nn.functional as F
outer = torch.outer(a, b)  # TCK903
L = torch.linalg.cholesky(A)  # TCK903
U = torch.cholesky(A, upper=True)  # TCK903
steps = torch.range(0, 10)  # TCK903
y = F.interpolate(x, scale_factor=2, mode="nearest")  # TCK903
""",
        ),
        Invalid(
            """
import torch
import functorch
from functorch import jacrev
per_sample = functorch.vmap(loss_fn)(params, x)  # TCK903
jacobian = jacrev(f)(x)  # TCK903
""",
            expected_replacement="""
import torch
import functorch
from functorch import jacrev
per_sample = torch.func.vmap(loss_fn)(params, x)  # TCK903
jacobian = torch.func.jacrev(f)(x)  # TCK903
""",
        ),
        Invalid(
            """
import torch
from torch.nn.utils import weight_norm
from torch import nn
conv = weight_norm(nn.Conv1d(80, 256, 3))  # TCK903
with torch.backends.cuda.sdp_kernel(enable_flash=False):  # TCK903
    out = attention(q, k, v)
"""
        ),
    )
