from __future__ import annotations

from torchcheck.lint.rule import FixSafety, Invalid, Valid
from torchcheck.rules.deprecations._symbols import SymbolImportRule


class NonPublicApiImport(SymbolImportRule):
    """
    ## What it does
    Checks for imports of private PyTorch functions that have a public alias, such as
    `from torch.utils.data._utils.collate import default_collate`.

    ## Why is this bad?
    Modules whose path contains a leading underscore are internal and change without
    deprecation. Import the public alias (`from torch.utils.data import default_collate`),
    which is the same function under a name PyTorch keeps stable.

    ## Example
    ```python
    from torch.utils.data._utils.collate import default_collate
    ```

    Use instead:
    ```python
    from torch.utils.data import default_collate
    ```

    ## Fix safety
    The fix rewrites the module of the import when every name it imports has a public
    alias of the same name in one module; the imported object is identical.

    ## References
    - [`torch.utils.data.default_collate`](https://pytorch.org/docs/stable/data.html#torch.utils.data.default_collate)
    - [Public `default_collate` and `default_convert`](https://github.com/pytorch/pytorch/pull/69862)
    """

    code = "TCK908"
    name = "non-public-api-import"
    message = "Import of a private PyTorch function that has a public alias"
    template = "Import of non-public {names}; {advice}"
    fix_title = "Import the public alias"
    fix_safety = FixSafety.SAFE
    status = "non-public"
    torchfix_codes = ("TOR105",)

    VALID = (
        Valid(
            """
from torch.utils.data import default_collate, default_convert
"""
        ),
        Valid(
            """
try:
    from torch.utils.data import default_collate
except ImportError:
    from torch.utils.data._utils.collate import default_collate
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.utils.data._utils.collate import default_collate, default_convert  # TCK908
from torch.utils.data._utils.collate import default_collate as collate, np_str_obj_array_pattern  # TCK908
""",
            expected_replacement="""
from torch.utils.data import default_collate, default_convert  # TCK908
from torch.utils.data._utils.collate import default_collate as collate, np_str_obj_array_pattern  # TCK908
""",
        ),
    )
