from __future__ import annotations

from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.deprecations._symbols import SymbolImportRule


class RemovedApiImport(SymbolImportRule):
    """
    ## What it does
    Checks for `from ... import` statements that import a function removed from PyTorch,
    such as `from torch import solve` or `from torch import symeig`.

    ## Why is this bad?
    The import still succeeds, because the name survives as a stub, but calling it raises
    `RuntimeError`. Importing it hides the problem until the code path runs. Import the
    `torch.linalg` replacement instead; the message says how the call changes.

    A name that is also imported from somewhere else in the same scope (the
    `try:`/`except ImportError:` pattern that supports several PyTorch versions) is
    ambiguous and not reported. The table of removed functions is shared with TCK901.

    ## Example
    ```python
    from torch import symeig
    ```

    Use instead:
    ```python
    from torch.linalg import eigh
    ```

    ## Fix safety
    There is no fix: the replacements have other names and signatures, so every use of
    the imported name changes too.

    ## References
    - [`torch.linalg`](https://pytorch.org/docs/stable/linalg.html)
    """

    code = "TCK902"
    name = "removed-api-import"
    message = "Import of a function removed from PyTorch"
    template = "Import of {names}, which has been removed from PyTorch and raises at run time; {advice}"
    status = "removed"
    torchfix_codes = ("TOR004",)

    VALID = (
        Valid(
            """
from torch.linalg import eigh, solve
from torch import linalg
"""
        ),
        Valid(
            """
try:
    from torch.linalg import solve
except ImportError:
    from torch import solve
"""
        ),
        Valid(
            """
from .compat import solve
from numpy.linalg import lstsq
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch import symeig  # TCK902
from torch import lstsq as least_squares, matmul  # TCK902
"""
        ),
        Invalid(
            """
def rank(A):
    from torch import matrix_rank  # TCK902
    return matrix_rank(A)
"""
        ),
    )
