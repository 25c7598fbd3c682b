from __future__ import annotations

import libcst as cst

from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.rule import ImportedName, ImportTrackingRule, Invalid, Valid

_V2 = "torchvision.transforms.v2"
# deprecated name -> what to use instead. ToTensor, to_tensor and get_image_size warn when
# used; ConvertImageDtype and convert_image_dtype are marked [DEPRECATED] in the docs only.
DEPRECATED: dict[str, str] = {
    f"{_V2}.ToTensor": "`v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`",
    f"{_V2}.functional.to_tensor": "`to_image(...)` followed by `to_dtype(..., dtype=torch.float32, scale=True)`",
    f"{_V2}.functional.get_image_size": "`get_size(...)`, which returns `[h, w]` instead of `[w, h]`",
    f"{_V2}.ConvertImageDtype": "`v2.ToDtype(dtype, scale=True)`",
    f"{_V2}.functional.convert_image_dtype": "`to_dtype(..., scale=True)`",
}
MESSAGE = "`{old}` is deprecated in torchvision's transforms v2; use {new}"


class DeprecatedTorchvisionTransform(ImportTrackingRule):
    """
    ## What it does
    Checks for deprecated parts of torchvision's transforms v2 API:
    `torchvision.transforms.v2.ToTensor`, `v2.functional.to_tensor`,
    `v2.functional.get_image_size`, `v2.ConvertImageDtype` and
    `v2.functional.convert_image_dtype`, wherever they are imported or used.

    ## Why is this bad?
    These names exist in v2 only to ease porting from v1 and are documented as deprecated;
    `v2.ToTensor`, `to_tensor` and `get_image_size` warn on every use and will be removed.
    `ToTensor` mixes two steps that v2 keeps apart: converting a PIL image or array to a
    tensor (`v2.ToImage()`, which returns a `tv_tensors.Image` so later v2 transforms know
    what it is) and converting the dtype with value scaling (`v2.ToDtype(torch.float32,
    scale=True)`). `ConvertImageDtype` is `ToDtype(dtype, scale=True)` under an old name, and
    `get_size` replaces `get_image_size` with the `[h, w]` order used everywhere else.

    The v1 transforms (`torchvision.transforms.ToTensor`, `torchvision.transforms.functional.to_tensor`)
    are not deprecated and are not reported, nor is code that keeps the old name on purpose
    for old torchvision versions (inside an `except` handler, or under an `if` that checks a
    version or probes with `hasattr`).

    ## Example
    ```python
    from torchvision.transforms import v2

    transform = v2.Compose([v2.RandomResizedCrop(224), v2.ToTensor()])
    ```

    Use instead:
    ```python
    import torch
    from torchvision.transforms import v2

    transform = v2.Compose(
        [v2.RandomResizedCrop(224), v2.ToImage(), v2.ToDtype(torch.float32, scale=True)]
    )
    ```

    ## Fix safety
    There is no fix: none of the replacements is a rename. `ToTensor` becomes two
    transforms whose result is a `tv_tensors.Image` rather than a plain tensor and equal
    only up to float precision, `get_size` returns its two numbers in the opposite order,
    and `ToDtype` needs the dtype that `ConvertImageDtype` defaulted. The replacements
    exist since torchvision 0.16 (PyTorch 2.1): the rule is off for an older
    `target-version`.

    ## References
    - [torchvision: Transforming images (v1 vs v2, deprecations)](https://pytorch.org/vision/stable/transforms.html)
    - [`torchvision.transforms.v2.ToTensor`](https://pytorch.org/vision/stable/generated/torchvision.transforms.v2.ToTensor.html)
    - [`torchvision.transforms.v2.ToDtype`](https://pytorch.org/vision/stable/generated/torchvision.transforms.v2.ToDtype.html)
    """

    code = "TCK910"
    name = "deprecated-torchvision-transform"
    message = "Deprecated torchvision transforms v2 API"
    required_text = ("ToTensor", "to_tensor", "get_image_size", "ConvertImageDtype", "convert_image_dtype")
    requires_torch = (2, 1)  # torchvision 0.16: v2.ToImage, v2.ToDtype(scale=)
    torchfix_codes = ("TOR202",)

    VALID = (
        Valid(
            """
import torch
from torchvision import transforms
from torchvision.transforms import functional as F
from torchvision.transforms import v2
legacy = transforms.Compose([transforms.ToTensor(), transforms.ConvertImageDtype(torch.float16)])
tensor = F.to_tensor(image)
size = F.get_image_size(tensor)
modern = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
"""
        ),
        Valid(
            """
try:
    from torchvision.transforms.v2 import ToTensor
except ImportError:
    from torchvision.transforms import ToTensor
pipeline = [ToTensor()]
"""
        ),
        Valid(
            """
from torchvision.transforms import ToTensor
from mylib.transforms import v2
class Wrapper:
    ToTensor = ToTensor
    def build(self):
        return [v2.ToTensor(), self.ToTensor()]
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torchvision.transforms import v2
transform = v2.Compose([v2.RandomResizedCrop(224), v2.ToTensor()])  # TCK910
"""
        ),
        Invalid(
            """
import torchvision.transforms.v2 as T
import torchvision.transforms.v2.functional as TF
from torchvision.transforms.v2 import (
    Compose,
    ToTensor,  # TCK910
)
pipeline = Compose([ToTensor(), T.ConvertImageDtype()])  # TCK910, TCK910
tensor = TF.to_tensor(image)  # TCK910
width, height = TF.get_image_size(tensor)  # TCK910
class MyToTensor(ToTensor):  # TCK910
    pass
"""
        ),
    )

    # ------------------------------------------------------------------ imports
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or node.module is None or node.relative:
            return
        module = dotted_name(node.module)
        for alias in node.names:
            local = alias.asname.name if alias.asname is not None else alias.name
            qualified = f"{module}.{dotted_name(alias.name)}"
            if qualified in DEPRECATED and isinstance(local, cst.Name) and not self.context.in_compatibility_code:
                self.track_import(alias, local.value, qualified)

    def report_imports(self, imports: list[ImportedName]) -> None:
        """The deprecated imports of a closing scope (one also imported from elsewhere, e.g. a
        fallback to v1 in `except ImportError:`, is ambiguous and never gets here)."""
        for found in imports:
            self._report(found.node, found.qualified)

    # ------------------------------------------------------------------ uses
    def visit_Attribute(self, node: cst.Attribute) -> None:
        qualified = self.context.qualified_name(node)
        if qualified in DEPRECATED and not self.context.in_compatibility_code:
            self._report(node, qualified)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self._report_name(node.func)

    def visit_Arg(self, node: cst.Arg) -> None:
        if isinstance(node.value, cst.Name):  # isinstance(t, ToTensor), class X(ToTensor)
            self._report_name(node.value)

    def _report_name(self, name: cst.Name) -> None:
        qualified = self.context.qualified_name(name)
        if qualified in DEPRECATED and not self.context.in_compatibility_code:
            self._report(name, qualified)

    def _report(self, node: cst.CSTNode, qualified: str) -> None:
        short = qualified.removeprefix("torchvision.transforms.")
        self.report(node, MESSAGE.format(old=short, new=DEPRECATED[qualified]))
