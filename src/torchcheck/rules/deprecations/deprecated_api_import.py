from __future__ import annotations

from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.deprecations._symbols import SymbolImportRule


class DeprecatedApiImport(SymbolImportRule):
    """
    ## What it does
    Checks for `from ... import` statements that import a deprecated PyTorch function or
    class, such as `from functorch import vmap`, `from torch.nn.utils import weight_norm`
    or `from torch import range`.

    ## Why is this bad?
    The imported name is going away; every use of it needs migrating (see TCK903 for the
    calls). Importing the replacement instead keeps the code working on future releases.

    A name that is also imported from another place in the same scope (the
    `try: from torch.func import vmap` / `except ImportError: from functorch import vmap`
    pattern that supports older PyTorch) is ambiguous and not reported. The deprecated
    names come from the table shared with TCK903; a `target-version` older than the
    replacement turns the name off.

    ## Example
    ```python
    from functorch import grad, vmap
    ```

    Use instead:
    ```python
    from torch.func import grad, vmap
    ```

    ## Fix safety
    The fix rewrites the module of the import when every imported name moved unchanged to
    one new module (`functorch.vmap` -> `torch.func.vmap`): the local names stay the same,
    so no other line changes. Imports that also bring in other names, or whose replacement
    has another name or signature, are not fixed.

    ## References
    - [Migrating from functorch to `torch.func`](https://pytorch.org/docs/stable/func.migrating.html)
    - [`torch.nn.utils.parametrizations.weight_norm`](https://pytorch.org/docs/stable/generated/torch.nn.utils.parametrizations.weight_norm.html)
    """

    code = "TCK904"
    name = "deprecated-api-import"
    message = "Import of a deprecated PyTorch function"
    template = "Import of deprecated {names}; {advice}"
    fix_title = "Import from the new module"
    fix_safety = FixSafety.SAFE
    status = "deprecated"
    torchfix_codes = ("TOR103",)

    VALID = (
        Valid(
            """
from torch.func import grad, vmap
from torch.nn.utils.parametrizations import weight_norm
"""
        ),
        Valid(
            """
try:
    from torch.func import vmap
except ImportError:
    from functorch import vmap
"""
        ),
        Valid(
            """
import torch
if torch.__version__ < "2.0":
    from functorch import vmap
"""
        ),
        Valid(
            """
from torch import arange, outer
from .utils import weight_norm
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from functorch import grad, vmap  # TCK904
from torch.nn.utils import weight_norm  # TCK904
from torch import ger, outer  # TCK904
""",
            expected_replacement="""
from torch.func import grad, vmap  # TCK904
from torch.nn.utils import weight_norm  # TCK904
from torch import ger, outer  # TCK904
""",
        ),
        Invalid(
            """
class Ensemble:
    from functorch import combine_state_for_ensemble  # TCK904
"""
        ),
    )
