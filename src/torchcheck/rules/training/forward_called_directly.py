from __future__ import annotations

import libcst as cst

from torchcheck.lint.kinds import Evidence, Kind
from torchcheck.lint.project import IMITATES_MODULE, NO, PROJECT, THIS_FILE, YES, Condition
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

_NO_MODULE_IMITATION = Condition(THIS_FILE, f"{PROJECT}:{IMITATES_MODULE}:{YES}", NO)


class ForwardCalledDirectly(Rule):
    """
    ## What it does
    Checks for `module.forward(x)` where `module` is an `nn.Module`, instead of `module(x)`.
    An instance of a class of another project file is a module when the class's bases reach
    `nn.Module` in the project's files, whatever the name it is stored under suggests
    (`self.model = dist.DistModel()` of a plain class is not), and so is one that an
    alternative constructor of the class makes (`GrowingNet.from_file(path)` whose method
    returns `cls(...)`). A submodule reached through an
    attribute (`self.model.head.forward(x)`) is one when the project's classes store only
    modules they construct in `self.head`.

    ## Why is this bad?
    `nn.Module.__call__` does more than run `forward`: it runs forward pre-hooks and hooks,
    backward hooks, and everything built on them - `DistributedDataParallel` and FSDP
    gradient synchronisation, `torch.compile`'s compiled graph (for a compiled module,
    `.forward` is the uncompiled Python code), quantization observers, pruning masks,
    activation checkpointing wrappers. Calling `.forward` skips all of it, silently.
    Call the module.

    Loss modules (`nn.MSELoss()`) are modules too. An instance of a class defined in another
    file of the project is reported when the project's class hierarchy reaches `nn.Module`.

    `super().forward(x)` and `Base.forward(self, x)` (a subclass extending its parent's
    forward) are fine and not reported. Neither is `self.forward(...)` in a module's own
    methods: `self` is always the unwrapped module (DDP, FSDP and `torch.compile` wrap it
    from the outside), so no wrapper is bypassed; in a `__call__` override `self(...)` would
    recurse, and a delegating helper such as `def scale(self, x): return self.forward(x)`
    is deliberate code that manages its own hooks.

    A value known to be a module only from how the code uses it (`list(mac.parameters())`)
    is not reported when the project defines a plain class, not a module, with its own
    `forward` and `parameters` methods (a multi-agent controller that gathers its agents'
    parameters): the value may be one of those, whose `forward` is an ordinary method.

    ## Example
    ```python
    logits = model.forward(images)
    ```

    Use instead:
    ```python
    logits = model(images)
    ```

    ## Fix safety
    The fix replaces `module.forward(...)` with `module(...)`, passing the same arguments.
    It is safe when the code shows that the receiver is a module (`nn.Linear(...)`, a module
    class of the file, `torch.compile(module)`): for a module without hooks or wrappers the
    result is identical, and where there are hooks, running them is what the module's
    owner asked for. It is unsafe when only the receiver's name (`model`, `self.net`) or a
    type annotation says it is a module: other objects have a `forward` method too (an
    OpenCV network), and calling them fails. A name bound to a call into a package that
    never returns modules (`net = cv2.dnn.readNetFromONNX(path)`) is not reported at all,
    nor is an optional parameter known only by its name (`def degrade(img, isp_model=None)`):
    it defaults to nothing, so the code never shows a module reaching it, and a
    `forward` method is all it is asked to have.

    ## References
    - [`torch.nn.Module.__call__` and hooks](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_forward_hook)
    - [`torch.nn.Module.forward`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.forward)
    """

    code = "TCK105"
    name = "forward-called-directly"
    message = "`.forward()` called directly; call the module so its hooks and wrappers run"
    fix_title = "Call the module"
    fix_safety = FixSafety.SAFE
    required_text = (".forward(",)

    VALID = (
        Valid(
            """
from losses import build_criterion
criterion = build_criterion("focal")
loss = criterion.forward(logits, labels)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Classifier(nn.Linear):
    def forward(self, x):
        return super().forward(x).softmax(-1)
"""
        ),
        Valid(
            """
import torch.nn as nn

class Wrapped(nn.Module):
    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def scale_corrected_output(self, x):
        return self.forward(x)

class Child(nn.Conv2d):
    def forward(self, x):
        return nn.Conv2d.forward(self, x)
"""
        ),
        Valid(
            """
logits = model(images)
traced = torch.jit.trace(model.forward, example)
"""
        ),
        Valid(
            """
def hook(module, inputs):
    return module.forward(*inputs)

class Pipeline:
    def __call__(self, x):
        return self.forward(x)
"""
        ),
        Valid(
            """
import cv2
import torch.nn as nn

class OnnxBackend(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.net = cv2.dnn.readNetFromONNX(weights)

    def forward(self, image):
        self.net.setInput(image.cpu().numpy())
        return self.net.forward()

class DnnBackend(nn.Module):
    def __init__(self, weights):
        super().__init__()
        net = cv2.dnn.readNetFromONNX(weights)
        self.__dict__.update(locals())

    def forward(self, image):
        self.net.setInput(image.cpu().numpy())
        return self.net.forward()
"""
        ),
        Valid(
            """
def add_sensor_noise(image, noise_model=None):
    if noise_model is not None:
        image = noise_model.forward(image)
    return image
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
from models import build_model

class Classifier(nn.Module):
    def __init__(self, backbone, classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(512, classes)

class Evaluator:
    def __init__(self, config):
        self.model = build_model(config)

    def logits(self, features, images):
        self.model.backbone.forward(images)
        return self.model.head.forward(features)  # TCK105
"""
        ),
        Invalid(
            """
logits = model.forward(images)  # TCK105
""",
            expected_replacement="""
logits = model(images)  # TCK105
""",
        ),
        Invalid(
            """
import torch
import torch.nn as nn
encoder = torch.compile(nn.TransformerEncoderLayer(512, 8))

class Trainer:
    def step(self, batch):
        features = encoder.forward(batch, src_key_padding_mask=None)  # TCK105
        return self.model.forward(features).mean()  # TCK105
""",
            expected_replacement="""
import torch
import torch.nn as nn
encoder = torch.compile(nn.TransformerEncoderLayer(512, 8))

class Trainer:
    def step(self, batch):
        features = encoder(batch, src_key_padding_mask=None)  # TCK105
        return self.model(features).mean()  # TCK105
""",
        ),
        Invalid(
            """
import torch.nn as nn

class Wrapper(nn.Module):
    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.backbone = backbone

    def forward(self, pixels, **kwargs):
        return self.backbone.forward(pixels, **kwargs)  # TCK105
""",
            expected_replacement="""
import torch.nn as nn

class Wrapper(nn.Module):
    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.backbone = backbone

    def forward(self, pixels, **kwargs):
        return self.backbone(pixels, **kwargs)  # TCK105
""",
        ),
        Invalid(
            """
import torch.nn as nn
criterion = nn.SmoothL1Loss()

def step(pred, target):
    return criterion.forward(pred, target)  # TCK105
""",
            expected_replacement="""
import torch.nn as nn
criterion = nn.SmoothL1Loss()

def step(pred, target):
    return criterion(pred, target)  # TCK105
""",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "forward":
            return
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return  # the module's own code: no wrapper is bypassed (see the doc)
        kind, evidence = self.context.kind_and_evidence(receiver)
        replacement = node.with_changes(func=receiver)
        condition = None
        if kind is None or evidence is Evidence.CONVENTION:
            condition = self.context.module_condition(receiver, named_as_one=kind is not None)
        if condition is not None:
            # an instance of a class of another file (whatever its name suggests): a module if
            # the index finds nn.Module up its bases
            self.report(node, replacement=replacement, fix_safety=FixSafety.SAFE, conditions=(condition,))
            return
        loss_module = kind is Kind.LOSS_FUNCTION and evidence is Evidence.STRONG  # `nn.MSELoss()`: a module too
        if kind is None and (conditions := self.context.submodule_conditions(receiver)):
            self.report(node, replacement=replacement, fix_safety=FixSafety.UNSAFE, conditions=conditions)  # `self.model.head.forward(x)`
            return
        if kind is not Kind.MODULE and not loss_module:
            return  # also skips `super().forward` and `Base.forward(self, ...)`
        if evidence is Evidence.CONVENTION and self._is_optional_parameter(receiver):
            return
        # used as a module, but the project has a plain class with `forward` and `parameters()`
        conditions = (_NO_MODULE_IMITATION,) if evidence is Evidence.USAGE else ()
        self.report(node, replacement=replacement, fix_safety=fix_safety_on(evidence), conditions=conditions)

    def _is_optional_parameter(self, receiver: cst.BaseExpression) -> bool:
        """``isp_model`` in ``def degrade(img, isp_model=None)``, still bound to the parameter here."""
        if not isinstance(receiver, cst.Name):
            return False
        binding = self.context.flow.reaching_binding(receiver.value)
        if binding is None or not isinstance(binding.node, cst.Param):
            return False
        default = binding.node.default
        return isinstance(default, cst.Name) and default.value == "None"
