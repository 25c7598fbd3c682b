from __future__ import annotations

from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.deprecations._symbols import SymbolCallRule


class NonPublicApiUse(SymbolCallRule):
    """
    ## What it does
    Checks for calls of private PyTorch functions that have a public alias, such as
    `torch.utils.data._utils.collate.default_collate`.

    ## Why is this bad?
    Modules whose path contains a leading underscore are internal: PyTorch moves and
    changes them without deprecation. The same function is exported publicly (here as
    `torch.utils.data.default_collate`), and the public name is the one that stays.

    ## Example
    ```python
    from torch.utils.data._utils import collate

    batch = collate.default_collate(samples)
    ```

    Use instead:
    ```python
    import torch

    batch = torch.utils.data.default_collate(samples)
    ```

    ## Fix safety
    The fix renames the call to the public alias, which is the very same function object.
    It needs the name `torch` (or an alias of a shared prefix) in scope; otherwise there
    is no fix.

    ## References
    - [`torch.utils.data.default_collate`](https://pytorch.org/docs/stable/data.html#torch.utils.data.default_collate)
    - [Public `default_collate` and `default_convert`](https://github.com/pytorch/pytorch/pull/69862)
    """

    code = "TCK907"
    name = "non-public-api-use"
    message = "Call of a private PyTorch function that has a public alias"
    template = "`{name}` is not public API; {advice}"
    fix_title = "Call the public alias"
    fix_safety = FixSafety.SAFE
    status = "non-public"
    torchfix_codes = ("TOR104",)

    VALID = (
        Valid(
            """
import torch
from torch.utils.data import default_collate
batch = default_collate(samples)
converted = torch.utils.data.default_convert(sample)
"""
        ),
        Valid(
            """
from mylib.data._utils.collate import default_collate
batch = default_collate(samples)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch.utils.data._utils.collate import default_collate
batch = default_collate(samples)  # TCK907
value = torch.utils.data._utils.collate.default_convert(sample)  # TCK907
""",
            expected_replacement="""
import torch
from torch.utils.data._utils.collate import default_collate
batch = torch.utils.data.default_collate(samples)  # TCK907
value = torch.utils.data.default_convert(sample)  # TCK907
""",
        ),
    )
