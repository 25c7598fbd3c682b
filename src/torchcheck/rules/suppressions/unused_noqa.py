from __future__ import annotations

from torchcheck.lint.noqa import UNUSED_NOQA_CODE
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid


class UnusedNoqa(Rule):
    """
    ## What it does
    Checks for `# noqa` directives that name a torchcheck code or rule name which silences
    nothing on that line: the rule reports nothing there (unused), is turned off for the
    file (non-enabled), or does not exist (unknown, such as a mistyped `TCK999`).

    ## Why is this bad?
    A directive outlives the code it was written for. Once the mistake is fixed or the
    line rewritten, the `# noqa: TCK201` stays, silences nothing, and tells readers that
    something is wrong with the line; a mistyped code never silenced anything, so the
    finding it was meant for is still reported, or was never there. Worse, a stale
    directive silences the next real mistake made on that line. Remove the codes that
    silence nothing.

    Only torchcheck's codes (`TCK...`) and rule names are judged: the codes of other tools
    sharing the comment (`# noqa: E501, TCK201`) are theirs, and a bare `# noqa` is left
    alone. The rule is opt-in, and it judges against the rules enabled in the run: a code
    whose rule is off is reported as non-enabled, so run it with the rule selection you use
    in CI. Like any finding, it is silenced by `# noqa: TCK001` on the line.

    ## Example
    ```python
    import torch

    mask = torch.ones(3, device="cuda")  # noqa: TCK201
    ```

    Use instead:
    ```python
    import torch

    mask = torch.ones(3, device="cuda")
    ```

    ## Fix safety
    The fix removes the codes that silence nothing, and the whole directive when no code
    is left (never leaving a bare `# noqa`, which would silence every rule), keeping the
    codes of other tools and any other comment text on the line. It is safe: nothing that
    was silenced comes back in the same run. A code removed as non-enabled would be needed
    again if its rule were turned on for the file later.

    ## References
    - [ruff: unused-noqa (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/)
    - [ruff: error suppression](https://docs.astral.sh/ruff/linter/#error-suppression)
    """

    code = UNUSED_NOQA_CODE
    name = "unused-noqa"
    message = "Unused `noqa` directive"
    fix_title = "Remove unused `noqa` codes"
    fix_safety = FixSafety.SAFE
    default_enabled = False
    # Computed by the engine once every other finding is placed (lint/noqa.py): the rule
    # visits nothing itself.
    required_text = ("noqa", "NOQA", "Noqa")

    VALID = (
        Valid(
            """
import torch

x = torch.ones(3, device="cuda")  # noqa: E501
y = compute()  # noqa
z = compute()  # noqa: TCK201, TCK001
"""
        ),
        Valid(
            """
note = "# noqa: TCK201"
value = 1  # torchcheck: ignore[TCK201] - not a noqa directive
other = 2  # no directive here
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

mask = torch.ones(3, device="cuda")  # noqa: TCK201  # TCK001
long_line = 1  # noqa: TCK999, E501  # TCK001
total = 2  # noqa: transfer-after-construction -- kept for the record  # TCK001
""",
            """
import torch

mask = torch.ones(3, device="cuda")  # TCK001
long_line = 1  # noqa: E501  # TCK001
total = 2  # kept for the record  # TCK001
""",
        ),
    )
