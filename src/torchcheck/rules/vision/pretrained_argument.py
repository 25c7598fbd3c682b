from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.nodes import argument_for, has_star_kwargs, keyword_argument, literal_bool
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.vision._weights import BY_BACKBONE_NAME, ENUM_MODULES, PRETRAINED, PRETRAINED_BACKBONE, QUANTIZED

MODELS = "torchvision.models"
MESSAGE = "`{old}=` is deprecated since torchvision 0.13; pass `{new}={value}` instead"
_ANY_WEIGHTS = "<a weights enum member or None>"


def _public_name(builder: str) -> str | None:
    """``resnet.resnet50`` -> ``resnet50``: each package re-exports its modules' builders."""
    if builder in BY_BACKBONE_NAME:
        return None  # backbone_utils is not re-exported
    *package, _, name = builder.split(".")
    return ".".join([*package, name])


def _mobilenet_alias(path: str) -> str | None:
    """``mobilenetv2.X`` is also ``mobilenet.X`` (``models/mobilenet.py`` re-exports v2 and v3)."""
    *package, module, name = path.split(".")
    return ".".join([*package, "mobilenet", name]) if module in ("mobilenetv2", "mobilenetv3") else None


def _qualified_builders() -> dict[str, str]:
    """Every qualified name a builder can be called by -> its key in the tables."""
    names: dict[str, str] = {}
    for builder in (*PRETRAINED, *BY_BACKBONE_NAME):
        for alias in (builder, _public_name(builder), _mobilenet_alias(builder)):
            if alias is not None:
                names[f"{MODELS}.{alias}"] = builder
    return names


def _enum_homes(enum: str) -> tuple[str, ...]:
    """Modules a weights enum can be reached from, the public package first."""
    module = ENUM_MODULES[enum]
    package = module.rsplit(".", 1)[0] if "." in module else ""
    homes = [f"{MODELS}.{package}".rstrip("."), f"{MODELS}.{module}"]
    alias = _mobilenet_alias(f"{module}.{enum}")
    if alias is not None:
        homes.append(f"{MODELS}.{alias.rsplit('.', 1)[0]}")
    return tuple(homes)


BUILDERS = _qualified_builders()


@dataclass(frozen=True)
class _Legacy:
    """One legacy argument in a call: ``pretrained=`` or ``pretrained_backbone=``."""

    argument: cst.Arg
    old: str  # "pretrained" / "pretrained_backbone"
    new: str  # "weights" / "weights_backbone"
    flag: bool | None  # the literal value, None when it is not a literal True/False


class TorchvisionPretrainedArgument(Rule):
    """
    ## What it does
    Checks for torchvision model builders called with the legacy `pretrained=` or
    `pretrained_backbone=` argument, such as `models.resnet50(pretrained=True)` or
    `detection.fasterrcnn_resnet50_fpn(pretrained_backbone=False)`, also when the builder is
    picked by name from a torchvision models module (`models.__dict__[args.arch](pretrained=True)`,
    `getattr(models, arch)(pretrained=True)`; reported without a fix: which weights enum
    applies is known only at run time).

    ## Why is this bad?
    Since torchvision 0.13 the builders take a weights enum: `weights=` (and
    `weights_backbone=` for detection and segmentation models). `pretrained=` still works
    through a compatibility shim that emits a deprecation warning and may be removed. The
    boolean also hides *which* weights are loaded: `pretrained=True` always means the
    weights the model was first released with (`ResNet50_Weights.IMAGENET1K_V1`), even where
    better ones exist (`IMAGENET1K_V2`, which `ResNet50_Weights.DEFAULT` points to). Naming the enum member makes
    the choice explicit, and the enum carries the matching preprocessing
    (`weights.transforms()`) and metadata such as the class names.

    `pretrained=` of other libraries (`timm.create_model("resnet50", pretrained=True)`,
    `from_pretrained`) is correct and is not reported, and neither is code that falls back
    to `pretrained=` on purpose for old torchvision versions (inside an `except` handler, or
    under an `if` that checks a version or probes with `hasattr`).

    ## Example
    ```python
    from torchvision import models

    backbone = models.resnet50(pretrained=True)
    detector = models.detection.fasterrcnn_resnet50_fpn(pretrained=False, pretrained_backbone=False)
    ```

    Use instead:
    ```python
    from torchvision import models

    backbone = models.resnet50(weights=models.ResNet50_Weights.IMAGENET1K_V1)
    detector = models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None)
    ```

    ## Fix safety
    The fix is safe: it passes exactly the weights the compatibility shim would have picked
    (`pretrained=True` -> the builder's legacy default such as `IMAGENET1K_V1`, the quantized
    weights when `quantize=True`; `False` -> `None`), so the same model with the same weights
    is built, minus the warning. It is offered only when every legacy argument is a literal
    `True`/`False`, when the enum can be spelled through a name the file already imports
    (`models.ResNet50_Weights`, `torchvision.models.ResNet50_Weights`, or the enum imported by
    name) and when no `**kwargs` could also pass `weights=`. Switch to `.DEFAULT` by hand if you
    want the best available weights: they give different results. Projects that still support
    torchvision older than 0.13 (PyTorch 1.12) cannot use `weights=`; set `target-version`.

    ## References
    - [torchvision: Models and pre-trained weights](https://pytorch.org/vision/stable/models.html)
    - [torchvision 0.13 release notes: multi-weight support API](https://github.com/pytorch/vision/releases/tag/v0.13.0)
    - [Introducing the multi-weight support API](https://pytorch.org/blog/introducing-torchvision-new-multi-weight-support-api/)
    """

    code = "TCK909"
    name = "torchvision-pretrained-argument"
    message = "`pretrained=` is deprecated in torchvision model builders; pass `weights=`"
    fix_title = "Pass the equivalent `weights=` enum member"
    fix_safety = FixSafety.SAFE
    required_text = ("pretrained",)
    requires_torch = (1, 12)  # torchvision 0.13
    torchfix_codes = ("TOR201",)

    VALID = (
        Valid(
            """
import torchvision
from packaging import version
from torchvision import models

TORCHVISION_VERSION = version.parse(torchvision.__version__)
if TORCHVISION_VERSION < version.parse("0.13.0"):
    inception = models.inception_v3(pretrained=True, init_weights=False)
else:
    inception = models.inception_v3(weights=models.Inception_V3_Weights.IMAGENET1K_V1, init_weights=False)
"""
        ),
        Valid(
            """
import timm.models

def build(name):
    return getattr(timm.models, name)(pretrained=True)
"""
        ),
        Valid(
            """
import timm
import torchvision
from transformers import AutoModel
model = timm.create_model("resnet50", pretrained=True, num_classes=10)
encoder = AutoModel.from_pretrained("bert-base-uncased")
backbone = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.DEFAULT)
"""
        ),
        Valid(
            """
from torchvision import models
def build(name, pretrained=False, **kwargs):
    weights = "DEFAULT" if pretrained else None
    return getattr(models, name)(weights=weights, **kwargs)
detector = models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=3)
"""
        ),
        Valid(
            """
from timm.models import resnet50
from .backbones import mobilenet_v2
def build_backbone(pretrained):
    return resnet50(pretrained=pretrained), mobilenet_v2(pretrained=True)
"""
        ),
        Valid(
            """
try:
    from torchvision.models import resnet18
except ImportError:
    from mylib.models import resnet18
net = resnet18(pretrained=True)
"""
        ),
        Valid(
            """
from torchvision import models
net = models.resnet18(models.ResNet18_Weights.DEFAULT)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torchvision.models as models

def build(arch):
    return models.__dict__[arch](pretrained=True)  # TCK909
"""
        ),
        Invalid(
            """
from torchvision.models import vgg

def features(vgg_type):
    return getattr(vgg, vgg_type)(pretrained=False).features  # TCK909
"""
        ),
        Invalid(
            """
import torchvision.models as models
backbone = models.resnet50(pretrained=True)  # TCK909
plain = models.vgg16_bn(pretrained=False, progress=False)  # TCK909
""",
            expected_replacement="""
import torchvision.models as models
backbone = models.resnet50(weights=models.ResNet50_Weights.IMAGENET1K_V1)  # TCK909
plain = models.vgg16_bn(weights=None, progress=False)  # TCK909
""",
        ),
        Invalid(
            """
import torchvision
model = torchvision.models.detection.fasterrcnn_resnet50_fpn(  # TCK909
    pretrained=False,
    pretrained_backbone=True,
    num_classes=3,
)
seg = torchvision.models.segmentation.deeplabv3_resnet101(pretrained=True)  # TCK909
flow = torchvision.models.optical_flow.raft_large(pretrained=True)  # TCK909
""",
            expected_replacement="""
import torchvision
model = torchvision.models.detection.fasterrcnn_resnet50_fpn(  # TCK909
    weights=None,
    weights_backbone=torchvision.models.ResNet50_Weights.IMAGENET1K_V1,
    num_classes=3,
)
seg = torchvision.models.segmentation.deeplabv3_resnet101(weights=torchvision.models.segmentation.DeepLabV3_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1)  # TCK909
flow = torchvision.models.optical_flow.raft_large(weights=torchvision.models.optical_flow.Raft_Large_Weights.C_T_SKHT_V2)  # TCK909
""",
        ),
        Invalid(
            """
from torchvision.models import resnet18, mobilenet_v2, MobileNet_V2_Weights
from torchvision.models.resnet import resnet50
net = resnet18(pretrained=True)  # TCK909
small = mobilenet_v2(pretrained=True)  # TCK909
big = resnet50(True)  # TCK909
none = resnet50(pretrained=False)  # TCK909
""",
            expected_replacement="""
from torchvision.models import resnet18, mobilenet_v2, MobileNet_V2_Weights
from torchvision.models.resnet import resnet50
net = resnet18(pretrained=True)  # TCK909
small = mobilenet_v2(weights=MobileNet_V2_Weights.IMAGENET1K_V1)  # TCK909
big = resnet50(True)  # TCK909
none = resnet50(weights=None)  # TCK909
""",
        ),
        Invalid(
            """
import torchvision
from torchvision.models import quantization
from torchvision.models.resnet import resnet34
from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
q = quantization.resnet50(pretrained=True, quantize=True)  # TCK909
f = quantization.resnet50(pretrained=True)  # TCK909
r = resnet34(True)  # TCK909
b = resnet_fpn_backbone(backbone_name="resnet50", pretrained=True)  # TCK909
""",
            expected_replacement="""
import torchvision
from torchvision.models import quantization
from torchvision.models.resnet import resnet34
from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
q = quantization.resnet50(weights=quantization.ResNet50_QuantizedWeights.IMAGENET1K_FBGEMM_V1, quantize=True)  # TCK909
f = quantization.resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V1)  # TCK909
r = resnet34(weights=torchvision.models.ResNet34_Weights.IMAGENET1K_V1)  # TCK909
b = resnet_fpn_backbone(backbone_name="resnet50", pretrained=True)  # TCK909
""",
        ),
        Invalid(
            """
from torchvision import models
def build(pretrained, **kwargs):
    a = models.resnet18(pretrained=pretrained)  # TCK909
    b = models.resnet18(pretrained=True, **kwargs)  # TCK909
    c = models.vit_h_14(pretrained=True)  # TCK909
    return a, b, c
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.in_compatibility_code:
            return
        builder = BUILDERS.get(self.context.call_name(node) or "")
        if builder is None:
            self._dynamic_builder(node)
            return
        legacy = _legacy_arguments(node, builder)
        if not legacy:
            return
        message = "; ".join(
            MESSAGE.format(old=item.old, new=item.new, value=self._value_text(node, builder, item)) for item in legacy
        )
        self.report(node, message, replacement=self._replacement(node, builder, legacy))

    def _dynamic_builder(self, call: cst.Call) -> None:
        """A builder picked by name from a torchvision models module (``getattr(models,
        arch)(pretrained=True)``, ``models.__dict__[arch](pretrained=True)``): every builder
        there takes ``weights=``; which enum member is unknown, so there is no fix."""
        module = _dynamic_member_of(call.func)
        if module is None or not (self.context.qualified_name(module) or "").startswith(MODELS):
            return
        legacy = [item for item in _legacy_arguments(call, "") if item.argument.keyword is not None]
        if legacy:
            values = ["None" if item.flag is False else _ANY_WEIGHTS for item in legacy]
            self.report(call, "; ".join(MESSAGE.format(old=item.old, new=item.new, value=value) for item, value in zip(legacy, values)))

    # ------------------------------------------------------------------ the weights to pass
    def _member(self, call: cst.Call, builder: str, item: _Legacy) -> str | None:
        """The enum member (``ResNet50_Weights.IMAGENET1K_V1``) a literal ``True`` selects."""
        if item.old == "pretrained_backbone":
            return PRETRAINED_BACKBONE.get(builder)
        quantize = keyword_argument(call, "quantize") if builder in QUANTIZED else None
        flag = literal_bool(quantize.value) if quantize is not None else False
        return None if flag is None else QUANTIZED[builder] if flag else PRETRAINED.get(builder)

    def _value_text(self, call: cst.Call, builder: str, item: _Legacy) -> str:
        if item.flag is False:
            return "None"
        member = self._member(call, builder, item) if item.flag else None
        return member if member is not None else _ANY_WEIGHTS

    # ------------------------------------------------------------------ the fix
    def _replacement(self, call: cst.Call, builder: str, legacy: list[_Legacy]) -> cst.Call | None:
        if has_star_kwargs(call) or any(argument.star == "*" for argument in call.args):
            return None  # **kwargs could also pass `weights=`; *args shifts the positions
        if any(keyword_argument(call, item.new) is not None for item in legacy):
            return None
        new_values: dict[int, cst.Arg] = {}
        for item in legacy:
            if item.flag is None:
                return None
            value: cst.BaseExpression | None = cst.Name("None")
            if item.flag:
                member = self._member(call, builder, item)
                value = self._spell(call.func, member) if member is not None else None
            if value is None:
                return None
            new_values[call.args.index(item.argument)] = _keyword_argument(item.argument, item.new, value)
        positional = [index for index, argument in enumerate(call.args) if argument.keyword is None]
        if any(index in new_values and index != positional[-1] for index in positional):
            return None  # a positional flag followed by more positional arguments stays positional
        return call.with_changes(args=[new_values.get(index, argument) for index, argument in enumerate(call.args)])

    def _spell(self, function: cst.BaseExpression, member: str) -> cst.BaseExpression | None:
        """``member`` as an expression that resolves here without a new import."""
        enum, value = member.split(".")
        homes = _enum_homes(enum)
        prefix = function.value if isinstance(function, cst.Attribute) else None
        while prefix is not None:  # through the callee's own prefix: `models.resnet50` -> `models.`
            qualified = self.context.qualified_name(prefix)
            path = _path_to(qualified, homes) if qualified is not None else None
            if path is not None:
                return _attributes(prefix.deep_clone(), [*path, enum, value])
            prefix = prefix.value if isinstance(prefix, cst.Attribute) else None
        if any(self.context.qualified_name(cst.Name(enum)) == f"{home}.{enum}" for home in homes):
            return _attributes(cst.Name(enum), [value])
        for name in ("torchvision", "models"):
            qualified = self.context.qualified_name(cst.Name(name))
            path = _path_to(qualified, homes) if qualified is not None else None
            if path is not None:
                return _attributes(cst.Name(name), [*path, enum, value])
        return None


def _dynamic_member_of(function: cst.BaseExpression) -> cst.BaseExpression | None:
    """``models`` in ``getattr(models, name)`` and ``models.__dict__[name]``."""
    if isinstance(function, cst.Call) and isinstance(function.func, cst.Name) and function.func.value == "getattr":
        return function.args[0].value if len(function.args) == 2 and not function.args[0].star else None
    if isinstance(function, cst.Subscript) and isinstance(function.value, cst.Attribute) and function.value.attr.value == "__dict__":
        return function.value.value
    return None


def _legacy_arguments(call: cst.Call, builder: str) -> list[_Legacy]:
    found: list[_Legacy] = []
    for old, new in (("pretrained", "weights"), ("pretrained_backbone", "weights_backbone")):
        argument = keyword_argument(call, old)
        if argument is not None:
            found.append(_Legacy(argument, old, new, literal_bool(argument.value)))
    if found:
        return found
    # The builders accept their first parameter positionally (with a warning): `resnet50(True)`
    # is the old `pretrained=True`. Only a literal flag tells it from a weights enum.
    argument = argument_for(call, 1 if builder in BY_BACKBONE_NAME else 0, "pretrained")
    flag = literal_bool(argument.value) if argument is not None and not argument.star else None
    if flag is not None:
        found.append(_Legacy(argument, "pretrained", "weights", flag))  # type: ignore[arg-type]
    return found


def _path_to(qualified: str, homes: tuple[str, ...]) -> list[str] | None:
    """Attribute names leading from module ``qualified`` to the first home reachable from it."""
    for home in homes:
        if home == qualified:
            return []
        if home.startswith(f"{qualified}."):
            return home[len(qualified) + 1 :].split(".")
    return None


def _attributes(base: cst.BaseExpression, names: list[str]) -> cst.BaseExpression:
    for name in names:
        base = cst.Attribute(value=base, attr=cst.Name(name))
    return base


def _keyword_argument(argument: cst.Arg, keyword: str, value: cst.BaseExpression) -> cst.Arg:
    equal = argument.equal
    if not isinstance(equal, cst.AssignEqual):
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return argument.with_changes(keyword=cst.Name(keyword), equal=equal, value=value)
