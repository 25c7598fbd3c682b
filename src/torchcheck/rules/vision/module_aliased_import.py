from __future__ import annotations

import libcst as cst

from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

MESSAGE = "Use `from {package} import {module}` instead of `import {package}.{module} as {module}`"


class TorchvisionModuleAliasedImport(Rule):
    """
    ## What it does
    Checks for `import torchvision.<module> as <module>` where the alias repeats the
    module's own name, such as `import torchvision.models as models` or
    `import torchvision.transforms.v2 as v2`.

    ## Why is this bad?
    This is a matter of style, not of behaviour: both spellings bind the same module
    object. `from torchvision import models` says the same without repeating the name, and
    it is how torchvision's documentation and tutorials spell these imports
    (`from torchvision import datasets, models, transforms`,
    `from torchvision.transforms import v2`), so code that follows it reads like the
    examples users compare it with. Pylint (and ruff, as `PLR0402`) reports the general
    pattern as `consider-using-from-import`.

    The rule is on by default because TorchFix reports this by default (TOR203) and
    torchcheck keeps parity with TorchFix; ignore `TCK911` if your project prefers the
    other spelling. A different alias (`import torchvision.transforms as T`) is not
    reported.

    ## Example
    ```python
    import torchvision.models as models
    import torchvision.transforms as transforms
    ```

    Use instead:
    ```python
    from torchvision import models
    from torchvision import transforms
    ```

    ## Fix safety
    The fix is safe: it rewrites the statement to `from torchvision import <module>`,
    which imports the same submodule and binds it to the same name. It is offered only
    when the `import` statement imports that single name (`import torchvision.models as
    models, os` is reported but left alone).

    ## References
    - [torchvision: Models and pre-trained weights](https://pytorch.org/vision/stable/models.html)
    - [torchvision: Transforming and augmenting images](https://pytorch.org/vision/stable/transforms.html)
    - [Python reference: the `import` statement](https://docs.python.org/3/reference/simple_stmts.html#the-import-statement)
    """

    code = "TCK911"
    name = "torchvision-module-aliased-import"
    message = "Use `from torchvision import <module>` instead of an alias that repeats the module name"
    fix_title = "Rewrite as `from ... import <module>`"
    fix_safety = FixSafety.SAFE
    required_text = ("torchvision.",)
    torchfix_codes = ("TOR203",)

    VALID = (
        Valid(
            """
import torchvision
import torchvision.transforms as T
import torchvision.transforms.functional as F
import torchvision.models.detection
from torchvision import datasets, models, transforms
from torchvision.transforms import v2
"""
        ),
        Valid(
            """
import timm.models as models
import mylib.torchvision.models as models
import torchvision_extra.transforms as transforms
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torchvision.models as models  # TCK911
import torchvision.datasets as datasets  # TCK911
import torchvision.transforms.v2 as v2  # TCK911
""",
            expected_replacement="""
from torchvision import models  # TCK911
from torchvision import datasets  # TCK911
from torchvision.transforms import v2  # TCK911
""",
        ),
        Invalid(
            """
import os, torchvision.transforms as transforms  # TCK911
def main():
    import torchvision.models as models; print(models)  # TCK911
""",
            expected_replacement="""
import os, torchvision.transforms as transforms  # TCK911
def main():
    from torchvision import models; print(models)  # TCK911
""",
        ),
    )

    def visit_Import(self, node: cst.Import) -> None:
        aliased = [alias for alias in node.names if _repeats_module_name(alias)]
        if not aliased:
            return
        package, _, module = (dotted_name(aliased[0].name) or "").rpartition(".")
        message = MESSAGE.format(package=package, module=module)
        if len(node.names) != 1:
            self.report(node, message)
            return
        replacement = cst.ImportFrom(
            module=cst.parse_expression(package),  # type: ignore[arg-type]
            names=[cst.ImportAlias(name=cst.Name(module))],
            semicolon=node.semicolon,
        )
        self.report(node, message, replacement=replacement)


def _repeats_module_name(alias: cst.ImportAlias) -> bool:
    """``torchvision.x.y as y``."""
    name = dotted_name(alias.name)
    if name is None or not name.startswith("torchvision.") or alias.asname is None:
        return False
    local = alias.asname.name
    return isinstance(local, cst.Name) and local.value == name.rsplit(".", 1)[1]
