from __future__ import annotations

from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.deprecations._symbols import SymbolCallRule


class RemovedApiUse(SymbolCallRule):
    """
    ## What it does
    Checks for calls of PyTorch functions that have been removed, such as `torch.solve`,
    `torch.symeig`, `torch.eig`, `torch.lstsq` and `torch.matrix_rank`, also spelled as a
    method of a tensor (`cov.symeig(True)`), which went with the function.

    ## Why is this bad?
    The names still exist, but only as stubs that raise `RuntimeError` when called. The
    code fails the first time it runs on a current PyTorch. Their `torch.linalg`
    replacements often take the arguments in a different order or return different
    results, so the message says how to migrate each one.

    The list of removed functions, with the pull requests that deprecated and removed
    them, lives in one table (`symbols.toml`) shared with TCK902-TCK904. Calls in
    compatibility code (an `except` handler, or an `if` that tests the PyTorch version) are
    left alone, and with a `target-version` older than the version that introduced the
    replacement the function is not reported.

    ## Example
    ```python
    import torch

    solution, _ = torch.solve(rhs, matrix)
    ```

    Use instead:
    ```python
    import torch

    solution = torch.linalg.solve(matrix, rhs)
    ```

    ## Fix safety
    There is no fix: every replacement changes the argument order or the result.

    ## References
    - [`torch.linalg`](https://pytorch.org/docs/stable/linalg.html)
    - [Removal of deprecated linear algebra functions](https://github.com/pytorch/pytorch/pull/70986)
    """

    code = "TCK901"
    name = "removed-api-use"
    message = "Call of a function removed from PyTorch"
    template = "`{name}` has been removed from PyTorch and raises at run time; {advice}"
    status = "removed"
    torchfix_codes = ("TOR001",)

    VALID = (
        Valid(
            """
import torch
from scipy.sparse.linalg import splu
factor = splu(matrix)
x = factor.solve(rhs)
values, vectors = torch.linalg.eigh(torch.eye(3))
"""
        ),
        Valid(
            """
import torch
solution = torch.linalg.solve(A, B)
eigenvalues, eigenvectors = torch.linalg.eigh(A)
rank = torch.linalg.matrix_rank(A)
"""
        ),
        Valid(
            """
import numpy as np
import scipy.linalg
x = np.linalg.solve(a, b)
w, v = scipy.linalg.eig(a)
"""
        ),
        Valid(
            """
import torch
def solve(A, B):
    if hasattr(torch, "linalg"):
        return torch.linalg.solve(A, B)
    else:
        return torch.solve(B, A)[0]
"""
        ),
        Valid(
            """
import torch
try:
    solution = torch.linalg.lstsq(A, B).solution
except AttributeError:
    solution = torch.lstsq(B, A)[0]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
solution, _ = torch.solve(B, A)  # TCK901
eigenvalues, eigenvectors = torch.symeig(A, eigenvectors=True)  # TCK901

def intrinsic_dimension(cov: torch.Tensor):
    eigenvalues, eigenvectors = cov.symeig(True)  # TCK901
    return eigenvalues
"""
        ),
        Invalid(
            """
import torch as T
from torch import matrix_rank
rank = matrix_rank(A)  # TCK901
fit = T.lstsq(B, A)  # TCK901
"""
        ),
    )
