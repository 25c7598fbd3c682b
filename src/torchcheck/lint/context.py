"""Shared, cheap, scope-aware inference that every rule asks instead of guessing.

:class:`LintContext` runs in the same walk as the rules (first on the way down, last on
the way up) and answers three questions about the code being visited:

* **names** - what qualified name an expression refers to, through import aliases
  (``import torch as T; T.load`` and ``from torch import load`` are both ``torch.load``);
* **kinds** - what a name or expression holds: a tensor, a graph-attached tensor, a module,
  an optimizer, a scheduler, a GradScaler, a dataloader, a device ... or ``None`` when it
  does not know (rules then stay silent); and the **evidence** behind each kind: a
  construction or assignment seen in the code (or an ``isinstance`` check) is strong, a type
  annotation is weaker, a conventional name (``model``, ``optimizer``) is the weakest. A fix
  that is only right for the inferred kind is safe only on strong evidence;
* **where** - inside which loops, under ``no_grad``/``inference_mode``, inside which class,
  and inside compatibility code (an ``except`` handler, or an ``if`` that tests the PyTorch
  version or probes for an API), where deliberate use of old APIs is not a mistake;
* **flow** - branches, paths, exits, per-loop facts and branch-aware bindings
  (:attr:`LintContext.flow`, see :mod:`torchcheck.lint.flow`);
* **functions** - what each function of the file does to its parameters
  (:meth:`LintContext.summary_of`) and which of them a call runs
  (:meth:`LintContext.resolve_call`), see :mod:`torchcheck.lint.summaries`.

A name imported from two different places (``try: from torch import vmap`` /
``except ImportError: from functorch import vmap``) is ambiguous and resolves to nothing.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

import libcst as cst

from torchcheck.lint import containers, guards, idioms, references, torch_api
from torchcheck.lint.literals import OTHER_LITERAL
from torchcheck.lint.binder import Binder
from torchcheck.lint.binder import Binding as NameBinding
from torchcheck.lint.buffers import methods_of
from torchcheck.lint.containers import appended_items, is_empty_list
from torchcheck.lint.distant import DistantKinds, agreeing
from torchcheck.lint.flow import ControlFlow
from torchcheck.lint.kinds import (
    TENSOR_KINDS,
    UNKNOWN,
    Evidence,
    GradMode,
    Inferred,
    Kind,
    called_as_loss,
    conventional,
    conventional_kind,
    grad_mode_of,
    inferred,
    strong,
    tensor_method_kind,
)
from torchcheck.lint.nodes import (
    argument_for,
    called_name,
    construction,
    dotted_name,
    imported_module,
    is_autocast_name,
    is_detached,
    is_none,
    keyword_argument,
    method_call,
    passes_once,
    root_name_node,
    self_attribute,
    source_text,
    subtree,
)
from torchcheck.lint.positions import Positions
from torchcheck.lint.project import (
    DERIVES,
    GRAD_OFF,
    GRAPH_ENTRIES,
    MAY_BE_MODULE,
    MODULE,
    MODULE_ATTRIBUTES,
    NO,
    NONE,
    OTHER_ATTRIBUTES,
    PASSED_KIND,
    PASSED_MODULE,
    PROJECT,
    TENSOR,
    THIS_FILE,
    TORCH_MODULE,
    YES,
    Condition,
    Symbol,
    returns_fact,
)
from torchcheck.lint.settings import LintSettings
from torchcheck.lint.tensor_namespace import TENSOR_NAMESPACE

if TYPE_CHECKING:
    from torchcheck.lint.summaries import FunctionSummary, ModuleSummaries, ResolvedCall


# A loop, or a method a framework calls once per batch (see idioms.PER_BATCH_METHODS): the
# body of either runs once per iteration.
Loop = cst.For | cst.While | cst.FunctionDef


# Packages whose calls never return PyTorch objects: whatever its name suggests, a value
# built by one (`net = cv2.dnn.readNetFromONNX(path)`) is not a module, an optimizer ...
_FOREIGN_PACKAGES = frozenset(
    "cv2 numpy PIL onnx onnxruntime openvino tensorrt tflite_runtime tensorflow keras jax flax "
    "sklearn scipy pandas paddle mxnet coremltools MNN ncnn rknn rknnlite tritonclient pycuda".split()
)
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})  # a copy is of the kind of what it copies
_PLAIN_CONTAINERS = frozenset({"collections.OrderedDict", "collections.defaultdict", "collections.deque", "collections.Counter"})
# Functions of model libraries that build or load a model (an `nn.Module`).
_MODEL_FACTORIES = frozenset(
    {
        "timm.create_model",
        "timm.models.create_model",
        "torchvision.models.get_model",
        "segmentation_models_pytorch.create_model",
        "efficientnet_pytorch.EfficientNet.from_pretrained",
        "efficientnet_pytorch.EfficientNet.from_name",
    }
)
# Model zoos whose every public lower-case function builds a model (`pretrainedmodels.resnet18(...)`).
_MODEL_ZOOS = frozenset({"pretrainedmodels", "geffnet"})
_MODEL_ZOO_HELPERS = frozenset({"utils", "datasets", "pretrained_settings", "model_names", "list_models", "create_model_from_config"})
# Lower-case names under `torchvision.models` that do not build a model.
_TORCHVISION_NOT_FACTORIES = frozenset({"get_weight", "get_model_weights", "get_model_builder", "list_models"})
_TORCHVISION_FAMILIES = frozenset({"detection", "segmentation", "video", "quantization", "optical_flow"})
_PRETRAINED_PACKAGES = frozenset({"transformers", "diffusers", "peft", "sentence_transformers", "open_clip"})
_PRETRAINED_CONSTRUCTORS = frozenset({"from_pretrained", "from_config", "from_single_file"})
# `AutoModelForCausalLM`, `BertModel`, `BertForMaskedLM`, `UNet2DConditionModel`, `PeftModel`;
# not tokenizers, configs, processors or noise schedulers, which have the same constructors.
_PRETRAINED_MODEL_CLASS = re.compile(r"Model|For[A-Z]|^Autoencoder")
_PRETRAINED_NOT_MODEL = re.compile(r"(Config|Tokenizer|TokenizerFast|Processor|Extractor|Scheduler|Pipeline|Output)$")
# Classes that `isinstance` and annotations name, beyond modules, optimizers and the like.
_TORCH_VALUE_CLASSES: dict[str, Kind] = {
    "torch.Size": Kind.OTHER,  # a tuple of ints, not a tensor
    "torch.Generator": Kind.OTHER,
    "torch.dtype": Kind.DTYPE,
    "torch.device": Kind.DEVICE,
}
_BUILTIN_CLASSES: dict[str, Kind] = {
    **dict.fromkeys(("int", "float", "complex"), Kind.NUMBER),
    **dict.fromkeys(("bool", "str", "bytes", "list", "tuple", "dict", "set", "frozenset"), Kind.OTHER),
}
_OTHER_LITERALS = (
    cst.BaseString, cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.Lambda
)

_AMBIGUOUS = "<ambiguous>"
_USAGE_CALL = re.compile(
    r"(?<!\bself)\.(?:%s)\(|\.size\(-?\d|\w\[[^\[\]\n]*,[^\[\]\n]*\]|\w\[[\"']|\.(?:items|keys|values)\(\)"  # `x.size(0)`, `x[idx, :]`, `ckpt["model"]`
    % "|".join(sorted(torch_api.MODULE_ONLY_METHODS | torch_api.MODULE_MODE_METHODS | torch_api.TENSOR_ONLY_METHODS
                      | {name.rsplit(".", 1)[1] for name in torch_api.TENSOR_INPUT_FUNCTIONS}))
)


_MAPPING_METHODS = frozenset({"items", "keys", "values"})
_COMMENT = re.compile(r"#[^\n'\"]*$", re.MULTILINE)  # one without quotes: never inside a string


class _Uses(NamedTuple):
    """What the code does with a value, as far as it tells a module from a tensor."""

    methods: frozenset[str] = frozenset()  # called on it: `net.named_parameters()`, `ids.unsqueeze(0)`
    called: bool = False  # `net(x)`
    tensor_argument: bool = False  # first argument of a torch function that takes only a tensor there
    sized: bool = False  # `x.size(0)`
    multi_indexed: bool = False  # `x[idx, :]`
    keyed: bool = False  # `ckpt["model"]`, `"params" in ckpt`

    def __or__(self, other: _Uses) -> _Uses:  # type: ignore[override]
        return _Uses(self.methods | other.methods, *(mine or theirs for mine, theirs in zip(self[1:], other[1:])))

    def shown(self) -> Inferred:
        """A module: a method only a module has, or a mode switch on a value also called. A
        tensor: a method or a torch function only a tensor takes, a size along a dimension,
        or ``x[idx, :]`` beside ``x.to(device)`` (no module, no NumPy array has both). A
        mapping: an entry read or written under a string key, a key looked up in it, or its
        ``items()`` / ``keys()`` / ``values()``."""
        if self.methods & torch_api.MODULE_ONLY_METHODS or (self.called and self.methods & torch_api.MODULE_MODE_METHODS):
            return inferred(Kind.MODULE, Evidence.USAGE)
        if self.methods & torch_api.TENSOR_ONLY_METHODS or self.tensor_argument or self.sized or ("to" in self.methods and self.multi_indexed):
            return inferred(Kind.TENSOR, Evidence.USAGE)
        if self.keyed or self.methods & _MAPPING_METHODS:
            return inferred(Kind.OTHER, Evidence.USAGE)
        return UNKNOWN


_NO_USES = _Uses()


@dataclass
class Binding:
    """What one name in one scope is bound to."""

    kind: Kind | None = None
    evidence: Evidence | None = None  # None exactly when kind is None
    qualified_name: str | None = None  # set for imports
    # a whole item drawn from a dataloader (`for batch in loader`, `batch = next(iter(loader))`):
    # maybe a batch object (Hugging Face's BatchEncoding, PyG's Data) whose `.to()` works in place
    batch: bool = False
    # the qualified class or factory that made the value (`accelerate.Accelerator`), when the
    # code shows it: framework objects are recognised by this, never by their names
    made_by: str | None = None
    # the class that made it as the project index names it, when that is a class of the
    # project (`Net` from `model.py`): whether it is a module is a question for the index
    maker_symbol: Symbol | None = None
    # a parameter the walk knows nothing of: what its callers pass, asked on first use
    pending: Callable[[], Inferred] | None = None
    # for `self.<attribute>`: the statement that bound it, whose branch code in the opposite
    # branch of the same test never sees (`if tuning: self.alpha = t.exp() else: ... self.alpha`)
    made_at: cst.CSTNode | None = None

    @classmethod
    def of(cls, value: Inferred, *, batch: bool = False, made_by: str | None = None, maker_symbol: Symbol | None = None) -> Binding:
        return cls(kind=value.kind, evidence=value.evidence, batch=batch, made_by=made_by, maker_symbol=maker_symbol)

    @property
    def inferred(self) -> Inferred:
        if self.pending is not None:
            answer, self.pending = self.pending(), None
            self.kind, self.evidence = answer
        return inferred(self.kind, self.evidence)


_MAX_HOPS = 3  # followed this deep: a `functools.partial` of a partial, a name bound to another name's value

# A class deriving from nn.Module; calling it builds a module.
_MODULE_CLASS = Binding(kind=Kind.OTHER, evidence=Evidence.STRONG)


@dataclass
class Scope:
    node: cst.CSTNode
    is_class: bool = False
    bindings: dict[str, Binding] = field(default_factory=dict)
    # for class scopes: what `self.<attr>` holds, from assignments in any method
    self_attributes: dict[str, Binding] = field(default_factory=dict)


@dataclass
class Frame:
    """Execution facts that reset at a function boundary (loops are the flow's)."""

    # Open grad-mode regions (decorators first, then `with` blocks), outermost first: the
    # innermost decides, so `enable_grad()` inside `no_grad()` turns gradients back on.
    grad_modes: list[GradMode] = field(default_factory=list)
    autocast: list[bool] = field(default_factory=list)  # enabled flag of each open autocast block
    # decorators imported from elsewhere in the project: the gradients are on only if none disables them
    grad_conditions: tuple[Condition, ...] = ()
    decorated: int = 0  # how many of grad_modes come from decorators (the function's and its encloser's)


# An `if` that tests the torch version or probes for an API guards compatibility code.
_VERSION_GUARD = re.compile(
    r"version|(?:has|get)attr\(\s*torch\b|is_torch_|torch_(?:greater|less|ge|gt|lt|le|\d)", re.IGNORECASE
)


def autocast_enabled(qualified_name: Callable[[cst.BaseExpression], str | None], item: cst.WithItem) -> bool | None:
    """None when ``item`` is not an autocast manager; False when it is literally disabled."""
    expression = item.item
    function = expression.func if isinstance(expression, cst.Call) else expression
    qualified = qualified_name(function)
    if not is_autocast_name(qualified):
        return None
    if not isinstance(expression, cst.Call):
        return True
    # torch.cuda/cpu.amp.autocast(enabled, dtype, ...); torch.autocast(device_type, dtype, enabled, ...)
    position = 0 if qualified is not None and qualified.startswith(("torch.cuda.", "torch.cpu.")) else 2
    positional = [argument for argument in expression.args if argument.keyword is None and not argument.star]
    flag: cst.BaseExpression | None = None
    for argument in expression.args:
        if argument.keyword is not None and argument.keyword.value == "enabled":
            flag = argument.value
    if flag is None and len(positional) > position:
        flag = positional[position].value
    return not (isinstance(flag, cst.Name) and flag.value == "False")


def _is_static(function: cst.FunctionDef) -> bool:
    return any(dotted_name(_decorator_target(d)) in ("staticmethod", "classmethod") for d in function.decorators)


def _factory_or_self(expression: cst.BaseExpression) -> cst.BaseExpression:
    """What a decorator or a ``with`` item names: ``no_grad`` in ``no_grad()`` or in ``no_grad``."""
    return expression.func if isinstance(expression, cst.Call) else expression


def _decorator_target(decorator: cst.Decorator) -> cst.BaseExpression:
    return _factory_or_self(decorator.decorator)


def is_pretrained_model_class(name: str) -> bool:
    """Whether a class of a model library (``transformers``, ``diffusers`` ...) named ``name``
    is a model (``AutoModelForCausalLM``, ``BertForMaskedLM``), not a tokenizer, a config,
    a processor or a scheduler, whose ``from_pretrained`` builds no module."""
    return bool(_PRETRAINED_MODEL_CLASS.search(name)) and not _PRETRAINED_NOT_MODEL.search(name)


def _is_torchvision_builder(qualified: str) -> bool:
    """``torchvision.models.resnet50``, ``torchvision.models.resnet.resnet50``,
    ``torchvision.models.detection.fasterrcnn_resnet50_fpn``; not its weight helpers."""
    parts = qualified.split(".")
    if parts[:2] != ["torchvision", "models"] or len(parts) not in (3, 4):
        return False
    last = parts[-1]
    if not last[:1].islower() or last in _TORCHVISION_NOT_FACTORIES or last.startswith("load_"):
        return False
    return len(parts) == 3 or parts[2] in _TORCHVISION_FAMILIES or last.startswith(parts[2])


def is_model_factory(qualified: str) -> bool:
    """Whether calling ``qualified`` builds or loads a model: ``timm.create_model``,
    ``torchvision.models.resnet50``, ``transformers.AutoModel.from_pretrained``,
    ``diffusers.UNet2DConditionModel.from_config`` ..."""
    if qualified in _MODEL_FACTORIES or _is_torchvision_builder(qualified) or _is_zoo_builder(qualified):
        return True
    owner, _, constructor = qualified.rpartition(".")
    if constructor not in _PRETRAINED_CONSTRUCTORS or qualified.partition(".")[0] not in _PRETRAINED_PACKAGES:
        return False
    return is_pretrained_model_class(owner.rsplit(".", 1)[-1])


def _is_zoo_builder(qualified: str) -> bool:
    package, _, name = qualified.partition(".")
    return package in _MODEL_ZOOS and "." not in name and name.islower() and not name.startswith("_") and name not in _MODEL_ZOO_HELPERS


# Annotations of containers whose (first) subscript is the type of every item.
_ITEM_CONTAINERS = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "tuple", "Tuple", "set", "Set"})


def _without_none(annotation: cst.BaseExpression) -> cst.BaseExpression:
    """``T`` for ``Optional[T]``, ``T | None`` and ``Union[T, None]``: used as anything, a
    ``None`` fails anyway, so the value is a ``T`` wherever it is used as one."""
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:  # type: ignore[attr-defined]
        parts = [annotation.left, annotation.right]  # type: ignore[attr-defined]
    elif type(annotation) is cst.Subscript and (dotted_name(annotation.value) or "").rpartition(".")[2] in ("Optional", "Union"):  # type: ignore[attr-defined]
        parts = [element.slice.value for element in annotation.slice if type(element.slice) is cst.Index]  # type: ignore[attr-defined]
    else:
        return annotation
    kept = [part for part in parts if not is_none(part)]
    return kept[0] if len(kept) == 1 else annotation


def _kind_of_torch_class(qualified: str) -> Kind | None:
    """The kind of an instance of the torch class ``qualified`` (``torch.optim.Adam``,
    ``torch.nn.Linear``, ``torch.utils.data.DataLoader`` ...), or None."""
    if qualified in torch_api.DEVICE_CONSTRUCTORS:
        return Kind.DEVICE
    if qualified in torch_api.GRAD_SCALERS:
        return Kind.SCALER
    if qualified in torch_api.DATALOADERS:
        return Kind.DATALOADER
    last = qualified.rsplit(".", 1)[-1]
    if qualified.startswith("torch.optim.lr_scheduler.") and last[:1].isupper():
        return Kind.SCHEDULER
    if qualified.startswith("torch.optim.") and last[:1].isupper() and qualified.count(".") == 2:
        return Kind.OPTIMIZER
    if qualified.startswith("torch.utils.data.") and last.endswith("Sampler"):
        return Kind.SAMPLER
    if torch_api.is_module_class_name(qualified):
        return Kind.LOSS_FUNCTION if last.endswith("Loss") else Kind.MODULE
    return None


def _attribute_kind(owner: Kind | None, attribute: str) -> Kind | None:
    """The kind of ``value.<attribute>`` for a value of kind ``owner``."""
    if owner in TENSOR_KINDS:
        if attribute == "device":
            return Kind.DEVICE
        if attribute == "dtype":
            return Kind.DTYPE
        if attribute in ("T", "mT", "H", "mH"):
            return owner
        if attribute in ("grad", "data"):
            return Kind.TENSOR
        return Kind.OTHER if attribute in ("shape", "ndim", "is_cuda", "requires_grad") else None
    if attribute == "device" and owner is Kind.MODULE:
        return Kind.DEVICE
    if attribute == "module" and owner is Kind.MODULE:
        return Kind.MODULE  # what a DistributedDataParallel, DataParallel or FSDP wrapper wraps
    return None


def _called_as_loss(callee: cst.BaseExpression) -> bool:
    """Whether ``callee`` (a name, or a container of callables indexed: ``losses[i]``) is
    named as a loss function."""
    while isinstance(callee, cst.Subscript):
        callee = callee.value
    if isinstance(callee, cst.Attribute):
        callee = callee.attr
    return isinstance(callee, cst.Name) and called_as_loss(callee.value)


def _combine(left: Inferred, right: Inferred) -> Inferred:
    """The result of ``left <op> right``: a tensor when either side is one, as surely as the
    surer tensor side; a number when both sides are, as surely as the less sure side."""
    tensors = [side for side in (left, right) if side.kind in TENSOR_KINDS]
    if tensors:
        kind = Kind.GRAPH_TENSOR if any(side.kind is Kind.GRAPH_TENSOR for side in tensors) else Kind.TENSOR
        return inferred(kind, max(side.evidence for side in tensors))  # type: ignore[type-var]
    if left.kind is Kind.NUMBER and right.kind is Kind.NUMBER:
        return inferred(Kind.NUMBER, min(left.evidence, right.evidence))  # type: ignore[type-var]
    return UNKNOWN


def _refines(kind: Kind, general: Kind) -> bool:
    """Whether a value of ``kind`` is also a ``general`` (a graph tensor is a tensor)."""
    return (
        kind is general
        or (general is Kind.TENSOR and kind in TENSOR_KINDS)
        or (general is Kind.MODULE and kind is Kind.LOSS_FUNCTION)
    )


class _Items(NamedTuple):
    """What a ``for`` loop draws from its iterable."""

    element: Inferred  # each item; for pairs, the second of each pair
    key: Inferred | None = None  # for pairs, the first: enumerate()'s index, named_modules()'s name
    batches: bool = False  # whole items drawn from a dataloader
    zipped: tuple[_Items, ...] = ()  # zip(a, b, ...): what each position draws


_NOTHING_KNOWN = _Items(UNKNOWN)
# Module containers whose iteration yields their modules.
_MODULE_SEQUENCES = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.modules.container.ModuleList"})
# Methods of a module whose items are its submodules, as themselves or as (name, module) pairs.
_SUBMODULE_ITERATORS = {"modules": False, "children": False, "named_modules": True, "named_children": True}


# `torch.is_tensor(x)` asks what `isinstance(x, torch.Tensor)` asks.
_TENSOR_CLASS = cst.Attribute(value=cst.Name("torch"), attr=cst.Name("Tensor"))
# Types no tensor is: a test that a value is one of them says it holds no tensor.
_PLAIN_CONTAINER_TYPES = frozenset({"list", "tuple", "dict", "int", "float", "bool", "str", "np.ndarray", "numpy.ndarray"})


def _isinstance_tests(test: cst.BaseExpression) -> list[tuple[str, list[cst.BaseExpression], bool]]:
    """``(name, classes, negated)`` for each ``[not] isinstance(name, classes)`` (or
    ``type(name) == cls``) that holds whenever ``test`` is true (``test`` itself, or a part
    of an ``and`` chain)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _isinstance_tests(test.left) + _isinstance_tests(test.right)
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    if type(call) is cst.Comparison and len(call.comparisons) == 1:  # `type(x) == list`, `type(x) is not dict`
        compared, operator = call.left, type(call.comparisons[0].operator)  # type: ignore[attr-defined]
        asked = compared.args[0].value if type(compared) is cst.Call and dotted_name(compared.func) == "type" and len(compared.args) == 1 else None  # type: ignore[attr-defined]
        if type(asked) is cst.Name and operator in (cst.Equal, cst.Is, cst.NotEqual, cst.IsNot):
            return [(asked.value, [call.comparisons[0].comparator], negated != (operator in (cst.NotEqual, cst.IsNot)))]  # type: ignore[attr-defined]
        return []
    if type(call) is cst.Call and dotted_name(call.func) == "torch.is_tensor" and len(call.args) == 1 and type(call.args[0].value) is cst.Name:  # type: ignore[attr-defined]
        return [(call.args[0].value.value, [_TENSOR_CLASS], negated)]  # type: ignore[attr-defined]
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance"):
        return []
    if len(call.args) != 2 or any(argument.keyword is not None or argument.star for argument in call.args):
        return []
    subject, classes = call.args[0].value, call.args[1].value
    if not isinstance(subject, cst.Name):
        return []
    if isinstance(classes, cst.Tuple):
        if any(isinstance(element, cst.StarredElement) for element in classes.elements):
            return []
        return [(subject.value, [element.value for element in classes.elements], negated)]
    return [(subject.value, [classes], negated)]


def _copies_locals_to_self(call: cst.Call) -> bool:
    """``self.__dict__.update(locals())``, an idiom for keeping every local as an attribute."""
    if dotted_name(call.func) != "self.__dict__.update" or len(call.args) != 1:
        return False
    argument = call.args[0].value
    return isinstance(argument, cst.Call) and dotted_name(argument.func) == "locals" and not argument.args


class ProjectNames(Protocol):
    """What the context offers rules about names across the project's files."""

    def symbol_of(self, expression: cst.BaseExpression) -> Symbol | None: ...


# Appended to the maker of a framework object made for one process (`Fabric(devices=1)`).
_ONE_PROCESS = "[one process]"
_BACKWARD_METHOD_NAMES = frozenset({"backward", *idioms.SELF_BACKWARD_METHODS})


def _looks_up_a_key(use: cst.Name, above: cst.CSTNode | None) -> bool:
    """``use["model"]`` (read or written) or ``"model" in use``: ``use`` holds a mapping."""
    if type(above) is cst.Subscript:
        index = above.slice[0].slice if len(above.slice) == 1 else None  # type: ignore[attr-defined]
        return above.value is use and type(index) is cst.Index and type(index.value) is cst.SimpleString  # type: ignore[attr-defined]
    return type(above) is cst.ComparisonTarget and type(above.operator) in (cst.In, cst.NotIn) and above.comparator is use  # type: ignore[attr-defined]


def _unpacked_position(assignment: cst.Assign, target: cst.CSTNode) -> int | None:
    """None when ``target`` is a whole target of ``assignment``; its position when it is an
    element of an unpacked tuple (``t, w = ...``); -1 anywhere deeper."""
    for assigned in assignment.targets:
        if assigned.target is target:
            return None
        if type(assigned.target) in (cst.Tuple, cst.List):
            for position, element in enumerate(assigned.target.elements):  # type: ignore[attr-defined]
                if element.value is target and type(element) is cst.Element:
                    return position
    return -1


def _method_names(classes: list[cst.ClassDef]) -> Iterator[str]:
    for class_def in classes:
        yield from (method.name.value for method in class_def.body.body if isinstance(method, cst.FunctionDef))  # type: ignore[attr-defined]


class LintContext:
    """Scope-aware facts about the code, maintained during the shared walk."""

    def __init__(self, settings: LintSettings | None = None, text: str | None = None) -> None:
        self.settings = settings or LintSettings()
        self._text = text
        self._code_without_comments: str | None = None  # for reads_attribute, made once
        self._scopes: list[Scope] = []
        self._star_bindings: dict[str, Binding] = {}  # what `from <project module> import *` binds
        self._frames: list[Frame] = [Frame()]
        self._classes: list[cst.ClassDef] = []
        self._statements: list[cst.CSTNode] = []
        self._loop_calls: dict[cst.CSTNode, list[tuple[str, cst.Call]]] = {}
        self._dataloader_loops: set[cst.CSTNode] = set()
        self._framework_steps: set[cst.FunctionDef] = set()  # methods whose returned loss a framework backpropagates
        self._grad_regions: dict[cst.With, int] = {}  # how many grad modes each `with` opened
        self._with_conditions: dict[cst.With, int] = {}  # how many grad conditions each `with` added
        self._autocast_regions: dict[cst.With, int] = {}  # how many autocast regions each `with` opened
        self.module_classes: set[str] = set()
        self._handler_depth = 0
        self._conditions: list[cst.If | cst.IfExp] = []
        self._version_guards: dict[cst.BaseExpression, bool] = {}
        # isinstance narrowing: (name, classes, whether the check holds) for blocks not yet
        # entered, and what entering a block installed, to undo when it is left
        self._narrowings: dict[cst.CSTNode, list[tuple[str, list[cst.BaseExpression], bool]]] = {}
        self._narrowed_blocks: dict[cst.CSTNode, list[tuple[str, Binding | None, Binding]]] = {}
        self._blocks: list[cst.CSTNode] = []  # the blocks around the current node, innermost last
        self.flow = ControlFlow()
        self._module: cst.Module | None = None
        self._partials_followed = 0  # `partial(partial(f))` and cycles of them: followed a few deep
        self._iterables_followed = 0  # `xs = list(xs)[1:]`: a name's value read a few deep
        self._binder: Binder | None = None
        self._distant: DistantKinds | None = None
        self._elsewhere = 0  # > 0 while inferring an expression away from the walk's position
        self._called_names: frozenset[str] | None = None
        self._top_level_methods: frozenset[str] | None = None
        self._plain_class_methods: frozenset[str] | None = None
        self._class_texts: dict[str, bool] = {}  # name -> whether the text may define a class of it
        self._summaries: ModuleSummaries | None = None
        # by id, with the node kept so that its id is never reused (a node's hash is a Python call)
        self._call_summaries: dict[int, tuple[cst.Call, FunctionSummary | None]] = {}
        self._call_names: dict[int, tuple[cst.Call, str | None]] = {}
        self._positions: Positions | None = None
        # the statement of the module's body the walk is in; it locates findings cheaply
        self.top_level_statement: cst.CSTNode | None = None
        # Names across files and the file's export summary, when the engine lints a file
        # for the project index (see lint/exports.py); None for a bare walk.
        self._passed_makers: dict[cst.Param, str | None] = {}  # see maker_of
        self._makes_frameworks: bool | None = None  # the file's text names a framework maker
        self._usage_text: bool | None = None  # the text may show kinds by usage (see _may_show_usage)
        self._usage_kinds: dict[tuple[int, str], _Uses] = {}  # (binding node, name) -> what the code does with it
        self.project: ProjectNames | None = None  # set by the engine: lint/exports.py's ProjectFacts

    # ----------------------------------------------------------------- where are we
    @property
    def loops(self) -> tuple[cst.For | cst.While, ...]:
        """Loops enclosing the current node, outermost first, within the current function."""
        return self.flow.loops

    @property
    def in_no_grad(self) -> bool:
        """Gradients are certainly off here: the innermost grad-mode region (a ``with`` block
        or a decorator of the current function) is ``no_grad()``, ``inference_mode()`` or
        ``set_grad_enabled(False)``; an ``enable_grad()`` region nested in it is grad-enabled."""
        modes = self._frames[-1].grad_modes
        return bool(modes) and modes[-1] is GradMode.OFF

    @property
    def grad_conditions(self) -> tuple[Condition, ...]:
        """What must hold for the gradients to be as :attr:`grad_maybe_disabled` says: that
        no decorator imported from another file of the project disables them (its module
        spells no grad-off API; a library's decorator holds it too)."""
        return self._frames[-1].grad_conditions

    def _grad_condition(self, callee: cst.BaseExpression) -> Condition | None:
        symbol = self._project_class(callee)  # a decorator (or its factory) of another project file
        return Condition(symbol, f"{MODULE}:{GRAD_OFF}", NONE) if symbol is not None else None

    def _defined_here_off(self, callee: cst.BaseExpression) -> bool:
        """A decorator or a context manager (or its factory, or its class) of this file whose
        code spells a grad-off API (``smart_inference_mode``, ``eval_mode(..., no_grad=True)``)."""
        bindings = self.binder.bindings_of(callee.value, self.binder.module_scope) if type(callee) is cst.Name else []  # type: ignore[attr-defined]
        defined = [binding.node for binding in bindings if type(binding.node) in (cst.FunctionDef, cst.ClassDef)]
        return any(type(name) is cst.Name and name.value in torch_api.GRAD_OFF_NAMES for d in defined for name in subtree(d))  # type: ignore[attr-defined]

    @property
    def grad_maybe_disabled(self) -> bool:
        """Under no_grad, or under ``set_grad_enabled(flag)`` whose flag is unknown here."""
        modes = self._frames[-1].grad_modes
        return bool(modes) and modes[-1] is not GradMode.ON

    @property
    def in_autocast(self) -> bool:
        """Inside an *enabled* autocast block: the innermost one decides, so
        ``autocast(enabled=False)`` (the idiom for a full-precision region) turns it off."""
        autocast = self._frames[-1].autocast
        return bool(autocast) and autocast[-1]

    @property
    def in_compatibility_code(self) -> bool:
        """Inside an ``except`` handler or an ``if`` that tests the PyTorch version or probes
        for an API (``hasattr(torch, ...)``): fallback code that uses old APIs on purpose."""
        return self._handler_depth > 0 or any(self._is_version_guard(node.test) for node in self._conditions)

    def _is_version_guard(self, test: cst.BaseExpression) -> bool:
        guard = self._version_guards.get(test)
        if guard is None:
            guard = self._version_guards[test] = bool(_VERSION_GUARD.search(source_text(test)))
        return guard

    @property
    def current_statement(self) -> cst.CSTNode | None:
        return self._statements[-1] if self._statements else None

    def statement_holding(self, value: cst.BaseExpression) -> cst.BaseSmallStatement | None:
        """The simple statement of the current line whose whole value is ``value``: an
        expression statement (its result discarded) or an assignment's right-hand side."""
        line = self.current_statement
        if not isinstance(line, cst.SimpleStatementLine):
            return None
        return next((small for small in line.body if getattr(small, "value", None) is value), None)

    @property
    def current_class(self) -> cst.ClassDef | None:
        return self._classes[-1] if self._classes else None

    def instance_class(self, expression: cst.BaseExpression) -> cst.ClassDef | None:
        """The class whose instance ``expression`` is, when it is the first parameter of the
        method being walked (``self`` in ``self(x)``, whatever it is named)."""
        function, class_def = self.flow.function, self.current_class
        if type(expression) is not cst.Name or function is None or class_def is None or _is_static(function):
            return None
        if not any(statement is function for statement in class_def.body.body):  # type: ignore[union-attr]
            return None
        positional = (*function.params.posonly_params, *function.params.params)
        return class_def if positional and positional[0].name.value == expression.value else None  # type: ignore[attr-defined]

    def sole_module_class(self) -> cst.ClassDef | None:
        """The one ``nn.Module`` class the file defines at its top level, if it defines exactly
        one (a training script with its model): what a parameter named as a model most
        likely holds when nothing else tells."""
        classes = [statement for statement in self._module.body if type(statement) is cst.ClassDef] if self._module else []
        modules = [class_def for class_def in classes if any(self._is_module_base(base.value) for base in class_def.bases)]
        return modules[0] if len(modules) == 1 else None

    @property
    def in_module_class(self) -> bool:
        """Inside the body of an ``nn.Module`` subclass (directly or in one of its methods)."""
        return self.current_class is not None and self.is_module_class(self.current_class)

    @property
    def top_level_method_names(self) -> frozenset[str]:
        """The names of the methods of the file's module-level classes: a cheap screen
        before asking the binder what class an instance belongs to."""
        if self._top_level_methods is None:
            self._top_level_methods = frozenset(_method_names(self._top_level_classes()))
        return self._top_level_methods

    @property
    def plain_class_method_names(self) -> frozenset[str]:
        """The methods of the file's module-level classes with no base (``class Ensemble:``):
        an object of such a class may answer ``parameters()`` or ``train()`` and be no module."""
        if self._plain_class_methods is None:
            plain = [statement for statement in self._top_level_classes() if not statement.bases]
            self._plain_class_methods = frozenset(_method_names(plain))
        return self._plain_class_methods

    def _top_level_classes(self) -> list[cst.ClassDef]:
        body = self._module.body if self._module is not None else ()
        return [statement for statement in body if isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock)]

    @property
    def binder(self) -> Binder:
        """Parents, scopes, bindings and references of the whole file, for questions asked
        after the walk (built on the first one; see :mod:`torchcheck.lint.binder`)."""
        if self._binder is None:
            assert self._module is not None, "the binder answers once the walk has started"
            self._binder = Binder(self._module)
        return self._binder

    def may_define_class(self, name: str) -> bool:
        """False when no ``class`` statement of this file can define ``name``: a test on the
        file's text, cheap enough to ask before the binder is built. True also where the
        text only looks like one (``class Foo`` in a string or a comment, or ``class Foobar``)."""
        if self._text is None:
            return True
        known = self._class_texts.get(name)
        if known is None:
            known = self._class_texts[name] = re.search(r"class[\s\\]+" + re.escape(name), self._text) is not None
        return known

    def reads_attribute(self, attribute: str) -> bool:
        """Whether the file's code reads ``.<attribute>`` of anything (``self.mask``,
        ``model.mask``, ``self.mask += 1``, ``getattr(m, "mask")``) besides assigning it or
        its items (``self.table[i] = row`` fills it); a test on the text, comments left out.
        True when the text is not at hand."""
        if self._text is None:
            return True
        if self._code_without_comments is None:
            self._code_without_comments = _COMMENT.sub("", self._text)
        code = self._code_without_comments
        uses = len(re.findall(rf"\.{attribute}\b", code))
        stores = len(re.findall(rf"\.{attribute}\s*(?:\[[^\]\n]*\]\s*)*=(?!=)", code))
        return uses > stores or re.search(rf"[\"']{attribute}[\"']", code) is not None

    def is_module_class(self, node: cst.ClassDef) -> bool:
        return node.name.value in self.module_classes

    def module_class_condition(self, node: cst.ClassDef) -> Condition | None:
        """For a top-level class this file does not show to be an ``nn.Module``, but whose
        bases come from other files (or from classes further down): the condition that it is
        one. The project index follows the bases across files; a base it cannot find (a
        library) never makes the class a module."""
        if self.is_module_class(node) or self.project is None or self._module is None:
            return None
        if not any(statement is node for statement in self._module.body):
            return None
        bases = [self.project.symbol_of(base.value) for base in node.bases if base.keyword is None and not base.star]
        if not any(base is not None for base in bases):
            return None
        return Condition(Symbol(None, node.name.value), TORCH_MODULE, YES)

    # ----------------------------------------------------------------- functions of this file
    def summary_of(self, function: cst.FunctionDef) -> FunctionSummary:
        """What ``function`` (a ``def`` of this file) does to its parameters, to ``self`` and
        to module-level names, and what it returns; computed on first use and memoised."""
        return self._module_summaries().of(function)

    def literal_cases(self, function: cst.FunctionDef) -> Iterator[tuple[str, object, bool, FunctionSummary]]:
        """What ``function`` does when a caller passes a literal that its tests compare a
        parameter with: ``(parameter, value, other, summary)`` for each value whose summary
        differs from the general one; ``other`` stands for any true literal no test names."""
        for parameter, value, summary in self._module_summaries().literal_cases(function):
            yield parameter, None if value is OTHER_LITERAL else value, value is OTHER_LITERAL, summary

    def compared_literals(self, function: cst.FunctionDef, parameter: str) -> list[object]:
        return self._module_summaries().index.compared_literals(function, parameter)

    def resolve_call(self, call: cst.Call) -> ResolvedCall | None:
        """The ``def`` of this file that ``call`` runs - a top-level function, a nested
        function in scope, or ``self.method(...)`` of the current class - with the call's
        arguments mapped onto its parameters; None for any other call."""
        if not self._module_summaries().may_run_a_def(call) or self.qualified_name(call.func) is not None:
            return None  # runs no def of this file, or an imported one
        from torchcheck.lint.summaries import (
            Unresolved,  # summaries import Kind from here
        )

        def meaning_of(name: str) -> cst.FunctionDef | Unresolved:
            binding = self.flow.last_binding(name)
            if binding is None:
                return Unresolved.UNBOUND
            return binding.node if isinstance(binding.node, cst.FunctionDef) else Unresolved.OTHER

        return self._module_summaries().resolve(
            call, function=self.flow.function, current_class=self.current_class, meaning_of=meaning_of, class_of=self._file_class_of
        )

    def def_run_by(self, call: cst.Call) -> cst.FunctionDef | None:
        """The ``def`` of this file that ``call`` runs, wherever the call stands (unlike
        :meth:`resolve_call`, which answers at the walk's position): a top-level or nested
        function, or ``self.method(...)`` of the caller's class."""
        resolved = self.call_run_by(call)
        return resolved.function if resolved is not None else None

    def call_run_by(self, call: cst.Call) -> ResolvedCall | None:
        """:meth:`def_run_by` with the argument ``call`` binds to each parameter."""
        summaries = self._module_summaries()
        if not summaries.may_run_a_def(call) or self.qualified_name(call.func) is not None:
            return None
        caller = self.binder.enclosing(call, cst.FunctionDef)
        return summaries.call_run_by(call, caller if isinstance(caller, cst.FunctionDef) else None)

    def values_returned(self, function: cst.FunctionDef, *, seen_from: cst.CSTNode | None = None) -> list[cst.BaseExpression] | None:
        """What ``function`` (a ``def`` of this file) may return: the value of each ``return``,
        less those under a setting of the instance that ``seen_from`` never runs under (``if
        self.mode == "binary":`` against ``if self.mode == "multiclass":``); None when it may
        return nothing (a bare ``return``)."""
        returns = references.return_statements(function)
        if seen_from is not None:
            returns = [statement for statement in returns if not guards.exclusive_settings(self.binder, statement, seen_from)]
        return [statement.value for statement in returns] if all(statement.value is not None for statement in returns) else None  # type: ignore[misc]

    def _file_class_of(self, receiver: cst.BaseExpression) -> str | None:
        """The class of this file whose instance ``receiver`` holds: a name bound once to
        ``Cls(...)``, or ``self.<attr>`` the class sets only to ``Cls(...)``."""
        made = self._instance_makers(receiver)
        if not made or not all(type(value) is cst.Call and type(value.func) is cst.Name for value in made):  # type: ignore[attr-defined]
            return None
        names = {value.func.value for value in made}  # type: ignore[attr-defined]
        if len(names) != 1:
            return None
        name = names.pop()
        bindings = self.binder.bindings_of(name, self.binder.module_scope)
        return name if len(bindings) == 1 and type(bindings[0].node) is cst.ClassDef else None

    def call_summary(self, call: cst.Call) -> FunctionSummary | None:
        """What ``call`` does, when it runs a ``def`` of this file: the callee's summary with
        targets spelled as the caller names them (``evaluate(model)`` puts ``model`` in eval
        mode); None for calls that resolve to nothing here."""
        known = self._call_summaries.get(id(call))
        if known is not None:
            return known[1]
        resolved = self.resolve_call(call)
        summary = resolved.as_called(self._module_summaries().specialized(resolved.function, resolved.literal_arguments(call))) if resolved is not None else None
        self._call_summaries[id(call)] = (call, summary)
        return summary

    def _module_summaries(self) -> ModuleSummaries:
        if self._summaries is None:
            from torchcheck.lint.summaries import ModuleSummaries

            assert self._module is not None, "summaries are asked for during the walk"
            self._summaries = ModuleSummaries(self._module, self)
        return self._summaries

    def shown_as_cell_output(self, expression: cst.Expr) -> bool:
        """In a notebook, whether ``expression`` is the last statement of its cell, whose value
        the notebook shows as the cell's output (unless a semicolon ends it)."""
        line = self.binder.parent(expression)
        if not self.settings.cell_starts or type(line) is not cst.SimpleStatementLine or line.body[-1] is not expression:  # type: ignore[attr-defined]
            return False
        body = self._module.body if self._module is not None else ()
        index = next((i for i, statement in enumerate(body) if statement is line), None)
        if index is None or isinstance(expression.semicolon, cst.Semicolon):
            return False
        row = self.line_of(line)
        next_cell = min((start for start in self.settings.cell_starts if start > row), default=None)
        return index + 1 == len(body) or (next_cell is not None and self.line_of(body[index + 1]) >= next_cell)

    def line_of(self, node: cst.CSTNode) -> int:
        """The line ``node`` starts on, for messages that name another place of the file
        (positions are computed once, on first use)."""
        if self._positions is None:
            assert self._module is not None
            self._positions = Positions(self._module)
        return self._positions[node].start.line

    # ----------------------------------------------------------------- names
    def _lookup(self, name: str) -> Binding | None:
        innermost = len(self._scopes) - 1
        for index in range(innermost, -1, -1):
            scope = self._scopes[index]
            if scope.is_class and index != innermost:
                continue  # class bodies are not visible from their methods
            binding = scope.bindings.get(name)
            if binding is not None:
                return binding
        return self._star_bindings.get(name)

    def qualified_name(self, expression: cst.BaseExpression) -> str | None:
        """``torch.nn.functional.dropout`` for ``F.dropout`` after ``import torch.nn.functional as F``."""
        expression_type = type(expression)
        if expression_type is cst.Name:
            binding = self._lookup(expression.value)  # type: ignore[attr-defined]
            if binding is None or binding.qualified_name in (None, _AMBIGUOUS):
                return None
            return binding.qualified_name
        if expression_type is cst.Attribute:
            base = self.qualified_name(expression.value)  # type: ignore[attr-defined]
            return f"{base}.{expression.attr.value}" if base else None
        return None

    def call_name(self, call: cst.Call, *, ahead: bool = False) -> str | None:
        """``qualified_name`` of what ``call`` calls. Dozens of rules ask it of every call, so
        the first answer is kept: it is given where the walk meets the call (names bound
        later in the file cannot change what the call meant there). A question asked
        ``ahead`` of the walk (of a call further down, whose imports the walk has not met
        yet) is answered without keeping the answer."""
        known = self._call_names.get(id(call))
        if known is not None:
            return known[1]
        name = self.qualified_name(call.func)
        if not ahead:
            self._call_names[id(call)] = (call, name)  # the node is kept, so its id is never reused
        return name

    def call_names(self, call: cst.Call) -> tuple[str, ...]:
        """What ``call`` may call, on any path: its :meth:`call_name`, else the qualified
        names a local alias was bound to once (``Sampler = RandomSampler if single else
        DistributedSampler``, then ``Sampler(data)``)."""
        name = self.call_name(call)
        if name is not None:
            return (name,)
        value = references.assigned_value(self.binder, call.func) if type(call.func) is cst.Name else None
        choices = (value.body, value.orelse) if type(value) is cst.IfExp else (value,) if type(value) in (cst.Name, cst.Attribute) else ()
        return tuple(filter(None, map(self.qualified_name, choices)))  # type: ignore[arg-type]

    def reference_to(self, qualified: str, near: cst.BaseExpression) -> cst.BaseExpression | None:
        """An expression naming ``qualified`` here, for a fix: through the root name of
        ``near`` when that root is a prefix of it (``F.upsample`` -> ``F.interpolate``), else
        through a visible import of its top-level package (``torch.func.vmap``); None if neither."""
        root = near
        while isinstance(root, cst.Attribute):
            root = root.value
        candidates = [root.value] if isinstance(root, cst.Name) else []
        candidates.append(qualified.partition(".")[0])
        for local in candidates:
            prefix = self.qualified_name(cst.Name(local))
            if prefix is not None and (qualified + ".").startswith(prefix + "."):
                return cst.parse_expression(local + qualified[len(prefix) :])
        return None

    # ----------------------------------------------------------------- kinds
    def kind_of(self, expression: cst.BaseExpression) -> Kind | None:
        """What ``expression`` evaluates to, or None when unknown."""
        return self.kind_and_evidence(expression).kind

    def evidence_of(self, expression: cst.BaseExpression) -> Evidence | None:
        """How the linter knows ``expression``'s kind (None when it does not know the kind)."""
        return self.kind_and_evidence(expression).evidence

    def kind_and_evidence(self, expression: cst.BaseExpression) -> Inferred:
        """What ``expression`` evaluates to and how the linter knows; UNKNOWN when it does not.

        A value derived from another (``x.float()``, ``x[0]``, ``model(x)``) has the kind its
        source implies and its source's evidence: it is a tensor only if ``x`` really is one.
        """
        expression_type = type(expression)
        if expression_type is cst.Name:
            if self._elsewhere:
                found = self._distant_kinds().name(expression, self._module_level_kind)  # type: ignore[arg-type]
                found = self._narrowed_where_read(expression, found) or found  # type: ignore[arg-type]
            else:
                found = self._infer_name(expression.value)  # type: ignore[attr-defined]
            if found.kind is not None and found.evidence is not Evidence.CONVENTION:
                return found
            shown = self._kind_from_usage(expression)  # type: ignore[arg-type]
            if shown.kind is Kind.TENSOR and found.kind is Kind.GRAPH_TENSOR:
                return inferred(Kind.GRAPH_TENSOR, shown.evidence)  # used as a tensor, made as a graph tensor (`output = model(x)`)
            return shown if shown.kind is not None else found  # what the code does outweighs what the name suggests
        if expression_type is cst.Attribute:
            return self._infer_attribute(expression)  # type: ignore[arg-type]
        if expression_type is cst.Call:
            return self._infer_call(expression)  # type: ignore[arg-type]
        if isinstance(expression, cst.Subscript):
            value = self.kind_and_evidence(expression.value)
            return value if value.kind in TENSOR_KINDS else UNKNOWN
        if isinstance(expression, cst.BinaryOperation):
            return _combine(self.kind_and_evidence(expression.left), self.kind_and_evidence(expression.right))
        if isinstance(expression, cst.UnaryOperation):
            return self.kind_and_evidence(expression.expression)
        if type(expression) in (cst.Integer, cst.Float, cst.Imaginary):
            return strong(Kind.NUMBER)
        if type(expression) is cst.SimpleString and torch_api.names_device(expression.evaluated_value):  # type: ignore[attr-defined]
            return strong(Kind.DEVICE)  # `"cuda:1"`: `.to()` takes it like a `torch.device`
        if isinstance(expression, _OTHER_LITERALS):
            return strong(Kind.OTHER)
        if isinstance(expression, cst.IfExp):
            if is_none(expression.orelse) or is_none(expression.body):  # `GradScaler() if amp else None`
                present = expression.body if is_none(expression.orelse) else expression.orelse
                return self.kind_and_evidence(present)  # using it as anything else would fail on None anyway
            body, orelse = self.kind_and_evidence(expression.body), self.kind_and_evidence(expression.orelse)
            if body.kind is None or body.kind != orelse.kind:
                return UNKNOWN
            return inferred(body.kind, min(body.evidence, orelse.evidence))  # type: ignore[type-var]
        return UNKNOWN

    def is_tensor(self, expression: cst.BaseExpression) -> bool:
        return self.kind_of(expression) in TENSOR_KINDS

    def is_loader_batch(self, expression: cst.BaseExpression) -> bool:
        """Whether ``expression`` is a name bound to a whole item drawn from a dataloader
        (``for step, batch in enumerate(tqdm(loader))``, ``batch = next(iter(loader))``): a
        tensor, or a batch object whose ``.to()`` may work in place and return itself."""
        if not isinstance(expression, cst.Name):
            return False
        binding = self._lookup(expression.value)
        return binding is not None and binding.batch

    def read_as_object(self, expression: cst.BaseExpression) -> bool:
        """Whether the code reads or calls on the value a name holds an attribute no tensor has
        (``data.edge_index`` of a graph batch, ``graph.number_of_nodes()``): whatever made it,
        it is no tensor, and its ``.to()`` may move it in place."""
        if type(expression) is not cst.Name:
            return False
        return any(self._reads_a_field(use) for binding in self.binder.reaching(expression) for use in self._uses_reached_by(binding))

    def _uses_reached_by(self, binding: NameBinding) -> list[cst.Name]:
        """The references of ``binding`` that it reaches: all of them when it is the name's
        only binding in its scope."""
        if len(self.binder.bindings_of(binding.name, binding.scope)) == 1:
            return binding.references
        return [use for use in binding.references if any(found is binding for found in self.binder.reaching(use))]

    def _reads_a_field(self, use: cst.Name) -> bool:
        above = self.binder.parent(use)
        if type(above) is not cst.Attribute or above.value is not use:
            return False
        name = above.attr.value
        if name.startswith("_") or name in TENSOR_NAMESPACE:
            return False
        outer = self.binder.parent(above)
        stored = type(outer) is cst.AssignTarget or (type(outer) in (cst.AugAssign, cst.AnnAssign) and outer.target is above)  # type: ignore[attr-defined]
        return not stored

    @property
    def _may_show_usage(self) -> bool:
        """A cheap screen: the text calls a module-only, mode or tensor-only method on something
        other than ``self``, or a torch function that takes a tensor."""
        if self._usage_text is None:
            self._usage_text = self._text is None or _USAGE_CALL.search(self._text) is not None
        return self._usage_text

    def _kind_from_usage(self, name: cst.Name) -> Inferred:
        """What the uses of the value a name holds show, with USAGE evidence; else UNKNOWN.

        A module: the code calls on it a method only a module has (``net.named_parameters()``),
        or switches its mode and also calls it (``net.train()`` and ``net(x)``). A tensor: the
        code calls on it a method only a tensor has (``ids.unsqueeze(0)``), or hands it first to
        a ``torch`` function that takes only a tensor there (``torch.min(ids, dim=1)``)."""
        if self._module is None or not self._may_show_usage:
            return UNKNOWN
        known = self._lookup(name.value) if not self._elsewhere else None
        made = known is not None and (known.made_by is not None or known.maker_symbol is not None)
        if made and known.made_by not in torch_api.TORCH_LOAD:  # type: ignore[union-attr]
            return UNKNOWN  # made by a call the project can look into (`QNetwork().to(device)`); a load returns what was saved
        binder = self.binder
        bindings = binder.bindings_of(name.value, binder.scope_of(name))
        shown = [self._shown_by_binding(binding) for binding in bindings]
        if not any(found.kind for found in shown):
            return UNKNOWN  # most names: no use shows anything, whichever binding reaches
        if len(bindings) > 1:
            shown = list(map(self._shown_by_binding, binder.reaching(name)))  # the costlier question
        kinds = {found.kind for found in shown}
        return next((found for kind in (Kind.MODULE, Kind.TENSOR, Kind.OTHER) for found in shown if found.kind is kind and kinds <= {kind, None}), UNKNOWN)

    def _shown_by_binding(self, binding: NameBinding) -> Inferred:
        return self._uses_of(binding).shown()

    def _uses_of(self, binding: NameBinding) -> _Uses:
        """What the code does with the value ``binding`` makes, here and in the functions of
        this file it is handed to."""
        key = id(binding.node), binding.name
        if key not in self._usage_kinds:
            self._usage_kinds[key] = _NO_USES  # a parameter handed on to itself (recursion) shows nothing more
            uses = self._uses_among(binding.references)
            if uses.shown().kind is not None and len(self.binder.bindings_of(binding.name, binding.scope)) > 1:
                # `vals = torch.tensor(vals)`, then `vals.unsqueeze(-1)`: only the uses this binding reaches
                uses = self._uses_among(self._uses_reached_by(binding))
            self._usage_kinds[key] = uses
        return self._usage_kinds[key]

    def _uses_among(self, uses: list[cst.Name]) -> _Uses:
        parents = [self.binder.parent(use) for use in uses]
        attributes = [above for use, above in zip(uses, parents) if type(above) is cst.Attribute and above.value is use]
        found = _Uses(
            methods=frozenset(above.attr.value for above in attributes) - self.plain_class_method_names,  # `ensemble.parameters()` of the file's own plain class
            called=any(type(above) is cst.Call and above.func is use for use, above in zip(uses, parents)),
            tensor_argument=any(map(self._first_tensor_argument, uses, parents)),
            sized=any(map(self._size_of_dimension, attributes)),
            multi_indexed=any(type(above) is cst.Subscript and len(above.slice) > 1 for above in parents),
            keyed=any(map(_looks_up_a_key, uses, parents)),
        )
        for use, above in zip(uses, parents):
            if type(above) is cst.Arg:
                found |= self._uses_in_callee(use, above)
        return found

    def _uses_in_callee(self, use: cst.Name, argument: cst.Arg) -> _Uses:
        """The uses of the parameter that ``use`` is passed to, in the function of this file
        the call runs: ``self.test(vx1, vx2)`` hands ``vx1`` to a ``test(self, x1, x2)`` that
        asks ``x1.size(0)``."""
        call = self.binder.parent(argument)
        resolved = self.call_run_by(call) if type(call) is cst.Call and not argument.star else None  # type: ignore[arg-type]
        if resolved is None or resolved.arguments is None:
            return _NO_USES
        param = resolved.parameter_receiving(use)
        binding = self.binder.binding_made_by(param.name) if param is not None else None
        return self._uses_of(binding) if binding is not None else _NO_USES

    def _size_of_dimension(self, attribute: cst.Attribute) -> bool:
        """``x.size(0)``, ``x.size(-1)``: a tensor's size along a dimension (a NumPy array's or
        a DataFrame's ``size`` is a number, not a method; a buffer's ``size()`` takes no dimension)."""
        call = self.binder.parent(attribute)
        if attribute.attr.value != "size" or type(call) is not cst.Call or call.func is not attribute or len(call.args) != 1:
            return False
        value = call.args[0].value
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        return type(value) is cst.Integer

    def _first_tensor_argument(self, use: cst.Name, parent: cst.CSTNode | None) -> bool:
        """``use`` - or a slice of it along several dimensions (``x[:, :h]``: no list takes
        that) - is the first positional argument of a torch function or of a ``torch.nn``
        layer the code built that takes only a tensor there, or an item of the sequence
        ``torch.cat`` / ``torch.stack`` joins."""
        used: cst.CSTNode = use
        if type(parent) is cst.Subscript and parent.value is use and len(parent.slice) > 1:  # type: ignore[attr-defined]
            used, parent = parent, self.binder.parent(parent)
        if type(parent) is cst.Element:
            return self._joined_as_tensor(parent)  # type: ignore[arg-type]
        if type(parent) is not cst.Arg or parent.keyword is not None or parent.star or parent.value is not used:  # type: ignore[attr-defined]
            return False
        call = self.binder.parent(parent)
        if type(call) is not cst.Call or call.args[0] is not parent:  # type: ignore[attr-defined]
            return False
        if torch_api.takes_a_tensor_first(self.call_name(call, ahead=True)):  # type: ignore[arg-type]
            return True
        layer = self._construction_of(call.func) if type(call.func) is cst.Name or self_attribute(call.func) is not None else None  # type: ignore[attr-defined]
        return type(layer) is cst.Call and torch_api.layer_takes_a_tensor(self.call_name(layer, ahead=True))  # type: ignore[arg-type]

    def _joined_as_tensor(self, element: cst.Element) -> bool:
        sequence = self.binder.parent(element)
        argument = self.binder.parent(sequence) if type(sequence) in (cst.List, cst.Tuple) else None
        call = self.binder.parent(argument) if type(argument) is cst.Arg and argument.keyword is None and not argument.star else None  # type: ignore[attr-defined]
        return type(call) is cst.Call and call.args[0] is argument and self.call_name(call, ahead=True) in torch_api.TENSOR_SEQUENCE_FUNCTIONS  # type: ignore[attr-defined]

    def _infer_name(self, name: str) -> Inferred:
        binding = self._lookup(name)
        if binding is None:
            if name == "self" and self.in_module_class:
                return strong(Kind.MODULE)
            return conventional(name)
        if binding.qualified_name is not None:
            return strong(self._kind_of_qualified_value(binding.qualified_name))
        return binding.inferred

    def _kind_of_qualified_value(self, qualified: str) -> Kind | None:
        if qualified in torch_api.DTYPES:
            return Kind.DTYPE
        return None

    def _infer_attribute(self, expression: cst.Attribute) -> Inferred:
        qualified = self.qualified_name(expression)
        if qualified is not None:
            return strong(self._kind_of_qualified_value(qualified))
        attribute = expression.attr.value
        if isinstance(expression.value, cst.Name) and expression.value.value == "self":
            return self._infer_self_attribute(expression, attribute)
        owner = self.kind_and_evidence(expression.value)
        kind = _attribute_kind(owner.kind, attribute)
        if kind is None and owner.kind is Kind.MODULE:
            stored = self._stored_by_class_of(expression.value, attribute)
            if stored.kind is not None:
                return inferred(stored.kind, min(owner.evidence, stored.evidence))  # type: ignore[type-var]
        if kind is None and owner.kind not in TENSOR_KINDS:
            return conventional(attribute)  # `trainer.optimizer`, `self.optimizer_scheduler.scheduler`
        return inferred(kind, owner.evidence)

    def _stored_by_class_of(self, owner: cst.BaseExpression, attribute: str) -> Inferred:
        """What every assignment to ``self.<attribute>`` stores in the class of this file whose
        instance ``owner`` holds (``model = UNet(...)``, then ``model.outc``); else UNKNOWN."""
        class_def = self._constructed_class(owner) if self._module is not None and not self._elsewhere else None
        return self._distant_kinds().attribute(class_def, attribute) if class_def is not None else UNKNOWN

    def _construction_of(self, owner: cst.BaseExpression) -> cst.BaseExpression | None:
        """The call that made the value of a name or ``self.<attribute>``, when one assignment
        alone binds it (``UNet(...)``, also ``UNet(...).to(device)``)."""
        if type(owner) is cst.Name:
            value = references.assigned_value(self.binder, owner)  # type: ignore[arg-type]
        else:
            binding = self._binding_of(owner)
            statement = self.binder.statement_of(binding.made_at) if binding is not None and binding.made_at is not None else None
            value = statement.value if type(statement) is cst.Assign else None  # type: ignore[attr-defined]
        return construction(value) if value is not None else None

    def _constructed_class(self, owner: cst.BaseExpression) -> cst.ClassDef | None:
        """The class of this file that made the value of a name or ``self.<attribute>``."""
        value = self._construction_of(owner)
        if type(value) is not cst.Call or type(value.func) is not cst.Name:  # type: ignore[attr-defined]
            return None
        return references.class_named(self.binder, value.func.value)  # type: ignore[attr-defined]

    def _partial_of(self, callee: cst.BaseExpression) -> cst.BaseExpression | None:
        """What a name or ``self.<attribute>`` bound once to ``functools.partial(f, ...)`` calls: ``f``."""
        if type(callee) is not cst.Name and self_attribute(callee) is None or not self._mentions("partial"):
            return None
        made = self._construction_of(callee)
        if type(made) is not cst.Call or not made.args or made.args[0].keyword is not None or made.args[0].star:  # type: ignore[attr-defined]
            return None
        wrapped = made.args[0].value  # type: ignore[attr-defined]
        if self.call_name(made, ahead=True) != "functools.partial" or type(wrapped) not in (cst.Name, cst.Attribute):  # type: ignore[arg-type]
            return None
        return wrapped if dotted_name(wrapped) != dotted_name(callee) else None  # not `self.f = partial(self.f, ...)`

    def _metric_without_graph(self, callee: cst.BaseExpression) -> bool:
        """A metric object whose value is never differentiable (torchmetrics' ``Accuracy(...)``):
        calling it returns the batch's value, computed without a graph."""
        if type(callee) is not cst.Name and self_attribute(callee) is None or not self._mentions("torchmetrics"):
            return False
        made = self._construction_of(callee)
        return type(made) is cst.Call and torch_api.is_metric_without_graph(self.call_name(made, ahead=True))  # type: ignore[arg-type]

    def _infer_self_attribute(self, expression: cst.Attribute, attribute: str) -> Inferred:
        """What the walk saw stored in ``self.<attribute>`` (in this method or one before it);
        else what the name suggests; else what every assignment in the class stores."""
        scope = self._class_scope() if not self._elsewhere else None
        if scope is not None and attribute in scope.self_attributes:
            binding = scope.self_attributes[attribute]
            return UNKNOWN if self._in_the_opposite_branch(binding.made_at, expression) else binding.inferred
        by_name = conventional(attribute)
        if by_name.kind is not None or self._module is None:
            return by_name
        class_def = self._distant_kinds().class_of(expression) if self._elsewhere else self.current_class
        return self._distant_kinds().attribute(class_def, attribute, expression) if class_def is not None else UNKNOWN

    def default_callee(self, call: cst.Call) -> str | None:
        """What a call of a parameter runs when the caller leaves the parameter out: its default,
        a class or function the code names (``norm_layer(ngf)`` with ``norm_layer=nn.InstanceNorm2d``).
        One path is enough: callers that pass another class take another path."""
        if type(call.func) is not cst.Name:
            return None
        bindings = self.binder.bindings_before(call.func)  # type: ignore[arg-type]
        parameter = bindings[0].node if len(bindings) == 1 else None
        if type(parameter) is not cst.Param or parameter.default is None:  # type: ignore[union-attr]
            return None
        return self.qualified_name(parameter.default)  # type: ignore[union-attr]

    def inherited_constructor(self, call: cst.Call) -> str | None:
        """The torch class whose ``__init__`` a call of a class of this file runs, when neither
        it nor the file's classes it derives from define one (``BottleSoftmax()`` of ``class
        BottleSoftmax(Bottle, nn.Softmax): pass``). ``nn.Module`` comes after every other
        torch base in the method resolution order."""
        found: list[str] = []
        pending = [call.func] if type(call.func) is cst.Name else []
        while pending:
            local = references.class_named(self.binder, pending.pop(0).value)  # type: ignore[attr-defined]
            if local is None or "__init__" in methods_of(local):
                return None  # not a class of the file, or one with its own constructor
            for base in (argument.value for argument in local.bases if argument.keyword is None and not argument.star):
                qualified = self.qualified_name(base)
                if qualified is not None:
                    found.append(qualified)
                elif type(base) is cst.Name:
                    pending.append(base)
        torch_classes = [name for name in found if name.startswith("torch.nn.")]
        specific = [name for name in torch_classes if name != "torch.nn.Module"]
        return (specific or torch_classes or [None])[0]

    def known_not_a_tensor(self, name: cst.Name) -> bool:
        """A test around the use says the name holds no tensor there: it runs where
        ``isinstance(name, torch.Tensor)`` fails (``if x is not None and not isinstance(x,
        torch.Tensor): x = torch.tensor(x)``), or where the name holds a plain container or
        number (``if type(mean) == list: mean = torch.tensor(mean)``, ``isinstance(x, (list, tuple))``)."""
        return any(
            subject == name.value and (
                (held.holds == negated and any(self.qualified_name(each) == "torch.Tensor" for each in classes))
                or (held.holds != negated and all(dotted_name(each) in _PLAIN_CONTAINER_TYPES for each in classes))
            )
            for held in guards.known_at(self.binder, name)
            for subject, classes, negated in _isinstance_tests(held.test)
        )

    def _in_the_opposite_branch(self, made_at: cst.CSTNode | None, use: cst.CSTNode) -> bool:
        """The binding was made in one function under a test, the use is in the same function
        under the opposite value of that test (asked only there: the question walks both)."""
        function = self.flow.function
        if made_at is None or function is None or self.binder.parent(use) is None:
            return False
        return self.binder.enclosing(made_at, cst.FunctionDef) is function and guards.never_together(self.binder, made_at, use)

    def module_constant_kind(self, name: str) -> Kind | None:
        """The kind of a module-level name the code shows for sure (``DEFAULT_DEVICE = "cuda"
        if ... else "cpu"``), else None."""
        binding = self._scopes[0].bindings.get(name) if self._scopes else None
        known = binding.inferred if binding is not None and binding.qualified_name is None else UNKNOWN
        return known.kind if known.evidence is Evidence.STRONG else None

    def _module_level_kind(self, name: str) -> Inferred:
        binding = self._scopes[0].bindings.get(name) if self._scopes else None
        if binding is None:
            return conventional(name)
        if binding.qualified_name is not None:
            return strong(self._kind_of_qualified_value(binding.qualified_name))
        return binding.inferred

    def values_stored_in(self, class_def: cst.ClassDef, attribute: str) -> list[cst.BaseExpression]:
        """Every value the class stores in ``self.<attribute>`` (``self.model = model``), in any method."""
        return self._distant_kinds().stored_values(class_def, attribute)

    def parameter_named(self, name: cst.Name) -> cst.Param | None:
        """The parameter ``name`` reads, when that parameter's binding alone reaches it."""
        bindings = self.binder.reaching(name)
        return bindings[0].node if len(bindings) == 1 and type(bindings[0].node) is cst.Param else None  # type: ignore[return-value]

    def values_passed_to(self, param: cst.Param, *, of_methods: bool = True) -> list[cst.BaseExpression]:
        """What every call of the parameter's function in this file passes for it (a method's
        calls through ``self``, a constructor's through its class, unless ``of_methods`` is
        False), a name passed followed to the value of the one assignment that reaches it
        (``criterion = nn.CrossEntropyLoss()``, then ``train(model, criterion)``); empty when a
        call hides it, or the function is handed on and may be called elsewhere."""
        function = self.binder.enclosing(param, cst.FunctionDef)
        if not isinstance(function, cst.FunctionDef):
            return []
        owner = references.class_of_method(self.binder, function)
        if owner is not None and not of_methods:
            return []
        called = owner.name.value if owner is not None and function.name.value == "__init__" else function.name.value
        if not self._is_called_in_file(called):
            return []  # a cheap screen: finding the calls of a method walks its class
        passed = self._distant_kinds().passed_values(function, param, owner)
        return [(references.assigned_value(self.binder, value) if type(value) is cst.Name else None) or value for value in passed]  # type: ignore[arg-type]

    def _distant_kinds(self) -> DistantKinds:
        if self._distant is None:
            owner = weakref.ref(self)  # no cycle: the file's tree is freed with the context
            self._distant = DistantKinds(
                lambda: owner().binder,  # type: ignore[union-attr]
                lambda expression: owner().kind_elsewhere(expression),  # type: ignore[union-attr]
                lambda annotation: owner()._annotated(annotation),  # type: ignore[union-attr]
            )
        return self._distant

    def kind_elsewhere(self, expression: cst.BaseExpression) -> Inferred:
        """``kind_and_evidence`` of an expression away from the walk's position (a value a
        name was assigned above, a ``return`` of another method): its names, ``self``
        included, are resolved where it stands, by the binder."""
        self._elsewhere += 1
        try:
            return self.kind_and_evidence(expression)
        finally:
            self._elsewhere -= 1

    def _is_called_in_file(self, name: str) -> bool:
        """Whether the file calls ``name`` somewhere (a cheap screen before the binder's pass)."""
        if self._text is None:
            return True
        if self._called_names is None:
            self._called_names = frozenset(_CALLED_NAME.findall(self._text))
        return name in self._called_names

    def _mentions(self, word: str) -> bool:
        """Whether the file's text holds ``word`` (true when the text is unknown): a screen
        before questions that need the binder."""
        return self._text is None or word in self._text

    def matches(self, pattern: re.Pattern[str]) -> bool:
        """Whether the file's text matches ``pattern`` (true when the text is unknown)."""
        return self._text is None or pattern.search(self._text) is not None

    def _infer_call(self, call: cst.Call) -> Inferred:
        qualified = self.call_name(call)
        if qualified is not None:
            if qualified in _COPIES and call.args and not call.args[0].star:
                return self.kind_and_evidence(call.args[0].value)  # `best_model = copy.deepcopy(model.state_dict())` is a state dict
            if qualified.partition(".")[0] in _FOREIGN_PACKAGES or qualified in _PLAIN_CONTAINERS:
                return strong(Kind.OTHER)  # `output_model = collections.OrderedDict()` is no module, whatever its name
            return self._infer_api_call(qualified, call)
        returned = self._returned_by_function_of_file(call)
        if returned is not None:
            return returned
        partial = self._partial_of(call.func) if self._partials_followed < _MAX_HOPS else None
        if partial is not None:  # `conv_fn = functools.partial(CausalConv3d)`, then `conv_fn(c, c, 3)`
            self._partials_followed += 1
            try:
                return self._infer_call(cst.Call(func=partial))
            finally:
                self._partials_followed -= 1
        if isinstance(call.func, cst.Name):
            name = call.func.value
            binding = self._lookup(name)
            if name in self.module_classes and (binding is None or binding is _MODULE_CLASS):
                return strong(Kind.MODULE)
            if name in ("float", "int", "len", "round"):
                return strong(Kind.NUMBER)
            if name in ("dict", "list", "tuple", "set") and binding is None:
                return strong(Kind.OTHER)
            if name in ("iter", "next") and binding is None and call.args:
                return self._drawn_from_loader(name, call.args[0].value)
            if name == "sum" and binding is None and call.args:
                return self._sum_of(call.args[0].value)
        receiver_method = method_call(call)
        if receiver_method is not None:
            receiver, method = receiver_method
            if method in torch_api.PLAIN_RESULT_METHODS:
                return strong(Kind.OTHER)  # a state dict or a parameter iterator, whatever the name it is bound to says
            passed = self._passed_through_framework(receiver, method, call)
            if passed is not None:
                return self.kind_and_evidence(passed)
            if method in _PRETRAINED_CONSTRUCTORS and self._is_module_class_name(receiver):
                return strong(Kind.MODULE)  # a model class of this file with a Hugging Face-style constructor
            owner = self.kind_and_evidence(receiver)
            result = self._method_result_kind(owner.kind, method)
            if result is None and owner.kind not in TENSOR_KINDS:
                # `self.encoder(x)`, `self.criterion(out, y)`: a module held in an attribute; on
                # another object only one the code shows (`client.model(id)` may be any method)
                held = self.kind_and_evidence(call.func)
                own = isinstance(receiver, cst.Name) and receiver.value == "self"
                if held.kind in (Kind.MODULE, Kind.LOSS_FUNCTION) and (own or held.evidence > Evidence.CONVENTION):
                    return self._module_result(call, held)
            if result is None and owner.kind is not Kind.MODULE and called_as_loss(method):
                # `self.loss_func(out, y)` of a trainer; a model's own `model.loss(batch)` returns what its author chose
                return self._loss_result(call, Evidence.CONVENTION)
            return inferred(result, owner.evidence)
        callee = self.kind_and_evidence(call.func)
        if callee.kind in (Kind.MODULE, Kind.LOSS_FUNCTION):
            return self._module_result(call, callee)
        if callee.kind is None and _called_as_loss(call.func):
            return self._loss_result(call, Evidence.CONVENTION)  # `loss(out, y)`, `yolo_losses[i](out, y)`
        return UNKNOWN

    def _module_result(self, call: cst.Call, callee: Inferred) -> Inferred:
        if self._metric_without_graph(call.func):
            return strong(Kind.TENSOR)
        return self._loss_result(call, callee.evidence) if callee.kind is Kind.LOSS_FUNCTION else inferred(self._graph_or_plain(), callee.evidence)

    def _loss_result(self, call: cst.Call, evidence: Evidence) -> Inferred:
        """What calling a loss returns: a tensor in the graph, unless the code shows every
        tensor it is fed detached (``criterion(pred.detach().cpu(), true.detach().cpu())``)."""
        values = [argument.value for argument in call.args if not argument.star]
        if values and len(values) == len(call.args) and all(self._detached(value) for value in values):
            return strong(Kind.TENSOR)
        return inferred(self._graph_or_plain(), evidence)

    def _detached(self, value: cst.BaseExpression) -> bool:
        """The code shows ``value`` holds no graph: a chain of methods that detaches it
        (``pred.detach().cpu()``), or a plain tensor that more than its name shows."""
        chain = value
        while type(chain) is cst.Call and type(chain.func) is cst.Attribute:
            if is_detached(chain):
                return True
            chain = chain.func.value
        shown = self.kind_and_evidence(value)
        return shown.kind is Kind.TENSOR and shown.evidence > Evidence.CONVENTION

    def _sum_of(self, iterable: cst.BaseExpression) -> Inferred:
        """``sum(losses)`` of tensors is a tensor, in the graph when an item is."""
        items = self._container_items(iterable)
        element = items.element if items is not None else UNKNOWN
        return element if element.kind in TENSOR_KINDS else UNKNOWN

    def _passed_through_framework(self, receiver: cst.BaseExpression, method: str, call: cst.Call) -> cst.BaseExpression | None:
        """The one argument that ``accelerator.prepare(model)`` or
        ``accelerator.unwrap_model(model)`` returns (wrapped or unwrapped, the same kind)."""
        framework = self.framework_of(receiver)
        if framework is None or len(call.args) != 1 or call.args[0].star or call.args[0].keyword:
            return None
        if method in framework.wrapping_methods or method in framework.unwrapping_methods:
            return call.args[0].value
        return None

    def _is_module_class_name(self, expression: cst.BaseExpression) -> bool:
        return isinstance(expression, cst.Name) and expression.value in self.module_classes

    def _returned_by_function_of_file(self, call: cst.Call) -> Inferred | None:
        """What a call of a ``def`` of this file returns, from the function's summary: known
        code beats a conventional name (``build_model(...)`` returns whatever its body
        returns). A function whose result kind is unknown returns nothing known - unless it is
        a method, whose receiver's kind may still say (``self.forward(x)``). None for calls
        that run no function of this file."""
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        summary = self.call_summary(call)
        if summary is None:
            return None
        kind = summary.returns.kind
        if kind is not None:
            return strong(kind)
        resolved = self.resolve_call(call)
        annotated = self._annotated(resolved.function.returns) if resolved is not None else UNKNOWN
        if annotated.kind is not None:
            return annotated  # `def get_layer(hparams) -> nn.Module` whose body builds it dynamically
        return UNKNOWN if isinstance(call.func, cst.Name) else None

    def _drawn_from_loader(self, builtin: str, source: cst.BaseExpression) -> Inferred:
        """``iter(loader)`` iterates the loader's batches; ``next(...)`` of it is a batch."""
        loader = self.kind_and_evidence(source)
        if loader.kind is not Kind.DATALOADER:
            return UNKNOWN
        return loader if builtin == "iter" else Inferred(Kind.TENSOR, loader.evidence)

    def _draws_batch(self, value: cst.BaseExpression) -> bool:
        """``next(iter(loader))``, ``next(batches)``: a whole item drawn from a dataloader."""
        if not (type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "next"):
            return False
        if not value.args or self._lookup("next") is not None:
            return False
        return self.kind_of(value.args[0].value) is Kind.DATALOADER

    def _graph_or_plain(self) -> Kind | None:
        if self.in_no_grad:
            return Kind.TENSOR
        return None if self.grad_maybe_disabled else Kind.GRAPH_TENSOR

    def _infer_api_call(self, qualified: str, call: cst.Call) -> Inferred:
        if is_model_factory(qualified):
            return strong(Kind.MODULE)
        if qualified in torch_api.WRAPPING_MODULE_FUNCTIONS:
            wrapped = self.kind_and_evidence(call.args[0].value) if call.args else UNKNOWN
            return wrapped if wrapped.kind is Kind.MODULE else UNKNOWN
        return strong(self._kind_of_api_call(qualified, call))

    def _kind_of_api_call(self, qualified: str, call: cst.Call) -> Kind | None:
        if qualified in torch_api.TENSOR_FACTORIES or qualified in torch_api.LEGACY_TENSOR_CONSTRUCTORS:
            return Kind.TENSOR
        if qualified in torch_api.TENSOR_LIKE_FACTORIES:
            return Kind.TENSOR
        if qualified in torch_api.TENSOR_OPS or qualified in torch_api.VARIABLE or torch_api.returns_a_tensor(qualified) or (
            qualified.startswith("torch.nn.functional.") and qualified not in torch_api.LOSS_FUNCTIONS
        ):
            return self._combine_arguments(call)
        if qualified in torch_api.LOSS_FUNCTIONS:
            return self._graph_or_plain()
        if qualified == "torch.nn.Parameter" or qualified == "torch.nn.parameter.Parameter":
            return Kind.TENSOR
        return _kind_of_torch_class(qualified)

    def _method_result_kind(self, owner: Kind | None, method: str) -> Kind | None:
        if owner in TENSOR_KINDS:
            result = tensor_method_kind(method)
            if result is not Kind.TENSOR or method in ("detach", "detach_"):
                return result
            return owner  # a tensor in the graph stays in it
        if owner is Kind.MODULE:
            if method in torch_api.MODULE_SELF_METHODS:
                return Kind.MODULE
            if method == "forward":
                return self._graph_or_plain()
        return None

    def _combine_arguments(self, call: cst.Call) -> Kind:
        kinds = [self.kind_of(argument.value) for argument in call.args if argument.keyword is None]
        for argument in call.args:
            if isinstance(argument.value, (cst.List, cst.Tuple)):
                kinds.extend(self.kind_of(element.value) for element in argument.value.elements)
        return Kind.GRAPH_TENSOR if Kind.GRAPH_TENSOR in kinds else Kind.TENSOR

    def _class_scope(self) -> Scope | None:
        for scope in reversed(self._scopes):
            if scope.is_class:
                return scope
        return None

    def self_attribute_kind(self, attribute: str) -> Kind | None:
        scope = self._class_scope()
        binding = scope.self_attributes.get(attribute) if scope is not None else None
        return binding.inferred.kind if binding is not None else None

    def _class_kind(self, expression: cst.BaseExpression) -> Kind | None:
        """The kind of an instance of the class ``expression`` names (in an annotation or an
        ``isinstance`` check), or None when the linter has no kind for that class."""
        qualified = self.qualified_name(expression) or dotted_name(expression)
        if qualified is None:
            return None
        if qualified.partition(".")[0] in _FOREIGN_PACKAGES:
            return Kind.OTHER  # np.ndarray, tf.Tensor, PIL.Image.Image
        last = qualified.rsplit(".", 1)[-1]
        if last in ("Tensor", "Parameter") or (qualified.startswith("torch.") and last.endswith("Tensor")):
            return Kind.TENSOR
        if last in self.module_classes or qualified == "nn.Module":
            return Kind.MODULE
        if qualified.startswith("torch.optim.") and last == "Optimizer":
            return Kind.OPTIMIZER
        if last in ("GradScaler", "DataLoader"):
            return Kind.SCALER if last == "GradScaler" else Kind.DATALOADER
        if qualified in _TORCH_VALUE_CLASSES:
            return _TORCH_VALUE_CLASSES[qualified]
        if qualified.startswith("torch."):
            return _kind_of_torch_class(qualified)
        return _BUILTIN_CLASSES.get(qualified)

    # ----------------------------------------------------------------- binding
    def bind(
        self, name: str, value: Inferred, *, batch: bool = False, made_by: str | None = None, maker_symbol: Symbol | None = None
    ) -> None:
        """Bind ``name`` in the current scope; an unknown value falls back to the name's convention.
        ``batch``: the value is a whole item drawn from a dataloader (see :meth:`is_loader_batch`);
        ``made_by``: the qualified class or factory that made it."""
        known = value if value.kind is not None else conventional(name)
        self._scopes[-1].bindings[name] = Binding.of(known, batch=batch, made_by=made_by, maker_symbol=maker_symbol)

    def _bind_known(self, name: str) -> None:
        """Bind ``name`` to something the code shows but whose kind is unknown (a name imported
        from the project): no convention applies, ``from .model import build_model`` is a function."""
        self._scopes[-1].bindings[name] = Binding()

    def _bind_star_import(self, node: cst.ImportFrom) -> None:
        """The names a star import of a project module binds, as if it spelled them; below
        every binding the file makes itself, whatever comes first."""
        star = self.settings.star_import(*imported_module(node))
        for name, qualified in star.qualified_names() if star is not None else ():
            self._star_bindings[name] = Binding(qualified_name=qualified)

    def _bind_import(self, name: str, qualified: str) -> None:
        bindings = self._scopes[-1].bindings
        previous = bindings.get(name)
        if previous is not None and previous.qualified_name not in (None, qualified):
            qualified = _AMBIGUOUS
        bindings[name] = Binding(qualified_name=qualified)

    def _bind_target(
        self,
        target: cst.BaseExpression,
        value: Inferred,
        *,
        batch: bool = False,
        made_by: str | None = None,
        maker_symbol: Symbol | None = None,
    ) -> None:
        if type(target) is cst.Name:
            self.bind(target.value, value, batch=batch, made_by=made_by, maker_symbol=maker_symbol)
        elif type(target) in (cst.Tuple, cst.List):
            element = value if value.kind is Kind.TENSOR else UNKNOWN  # unpacking a tensor yields tensors
            for item in target.elements:
                self._bind_target(item.value, element)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, UNKNOWN)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            scope = self._class_scope()
            if scope is not None:
                attribute = target.attr.value
                known = value if value.kind is not None else conventional(attribute)
                scope.self_attributes[attribute] = Binding.of(known, made_by=made_by, maker_symbol=maker_symbol)
                scope.self_attributes[attribute].made_at = target

    def _bind_assignment(self, targets: list[cst.BaseExpression], value: cst.BaseExpression | None) -> None:
        for target in targets:
            if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) and len(target.elements) == len(value.elements):
                for target_element, value_element in zip(target.elements, value.elements):
                    self._bind_target(target_element.value, self.kind_and_evidence(value_element.value))
            elif type(target) in (cst.Tuple, cst.List) and (self._bind_unpacked_idiom(target, value) or self._bind_returned_elements(target, value)):
                continue
            elif type(value) is cst.Subscript and type(target) is cst.Name and self._bind_stored_entry(target, value):  # type: ignore[arg-type]
                continue
            elif value is not None:
                inferred_value = self.kind_and_evidence(value)
                if inferred_value.kind is Kind.GRAPH_TENSOR and self.in_no_grad and type(value) not in (cst.Name, cst.Attribute):
                    inferred_value = inferred(Kind.TENSOR, inferred_value.evidence)  # computed with gradients off: no graph
                maker = self.call_name(value) if type(value) is cst.Call else None
                if maker is not None and self.made_for_one_process(value, maker):  # type: ignore[arg-type]
                    maker = f"{maker}{_ONE_PROCESS}"
                symbol = self._project_maker(value) if inferred_value.kind is None else None
                if type(target) in (cst.Tuple, cst.List) and inferred_value.kind is Kind.GRAPH_TENSOR and self._calls_a_loss(value):
                    for item in target.elements:  # `loss, c_loss, r_loss = focal_loss(...)`: every term is in the graph
                        self._bind_target(item.value, inferred_value)
                    continue
                self._bind_target(target, inferred_value, batch=self._draws_batch(value), made_by=maker, maker_symbol=symbol)
                self._note_alias(target, value)
            else:
                self._bind_target(target, UNKNOWN)

    def _note_alias(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``ensure_tensor = torch.tensor``: the name is another name for what it was bound to,
        when that is its only binding in its scope (not ``weight_norm = ...`` on each branch
        of a version test)."""
        qualified = self.qualified_name(value) if type(target) is cst.Name and type(value) in (cst.Name, cst.Attribute) else None
        if qualified is not None and len(self.binder.bindings_of(target.value, self.binder.scope_of(target))) == 1:  # type: ignore[attr-defined]
            self._scopes[-1].bindings[target.value].qualified_name = qualified  # type: ignore[attr-defined]

    def _calls_a_loss(self, value: cst.BaseExpression) -> bool:
        """A call of a loss function or loss module, known or named so (``focal_loss(...)``)."""
        return type(value) is cst.Call and (self.kind_of(value.func) is Kind.LOSS_FUNCTION or _called_as_loss(value.func))  # type: ignore[attr-defined]

    def _bind_stored_entry(self, target: cst.Name, read: cst.Subscript) -> bool:
        """``model = package["model"]`` of a dict this code fills: the name holds what was stored
        under that key (no convention applies to it); False when that is not known."""
        if self._module is None:
            return False
        stored = containers.stored_entries(self.binder, read)
        if not stored:
            return False
        found = agreeing([self.kind_and_evidence(value) for value in stored], Evidence.STRONG)
        if found.kind is None:
            self._bind_known(target.value)
        else:
            self.bind(target.value, found)
        return True

    def _bind_unpacked_idiom(self, target: cst.Tuple | cst.List, value: cst.BaseExpression | None) -> bool:
        """``model, opt = accelerator.prepare(model, opt)`` binds each name to what the same
        position passed (wrapped, same kind); ``engine, opt, _, _ = deepspeed.initialize(...)``
        binds the engine. False when ``value`` is no such idiom."""
        if type(value) is not cst.Call:
            return False
        first_item_maker = idioms.MAKERS_OF_FIRST_ITEM.get(self.call_name(value) or "")
        if first_item_maker is not None and target.elements:
            self._bind_target(target.elements[0].value, strong(Kind.MODULE), made_by=first_item_maker)
            for element in target.elements[1:]:
                self._bind_target(element.value, UNKNOWN)
            return True
        wrapped = self._wrapped_arguments(value)
        if wrapped is None or len(wrapped) != len(target.elements):
            return False
        for element, argument in zip(target.elements, wrapped):
            self._bind_target(element.value, self.kind_and_evidence(argument), made_by=self.maker_of(argument), maker_symbol=self._maker_symbol(argument))
        return True

    def _maker_symbol(self, value: cst.BaseExpression) -> Symbol | None:
        """The class of another project file that made ``value`` (a call of it, or a name bound to one)."""
        if type(value) is cst.Call:
            return self._project_maker(value)
        binding = self._binding_of(value)
        return binding.maker_symbol if binding is not None else None

    def unpacked_kinds(self, target: cst.Tuple | cst.List, value: cst.BaseExpression | None) -> tuple[Kind | None, ...]:
        """The kind each element of ``target`` gets from unpacking ``value``, a call of a
        function of this file that returns a tuple of that length (``indices, weights =
        sampler.sample(n)``); () when that is not known."""
        summary = self.call_summary(value) if type(value) is cst.Call else None  # type: ignore[arg-type]
        elements = summary.returns.elements if summary is not None else ()
        starred = any(isinstance(item, cst.StarredElement) for item in target.elements)
        return elements if len(elements) == len(target.elements) and not starred else ()

    def _bind_returned_elements(self, target: cst.Tuple | cst.List, value: cst.BaseExpression | None) -> bool:
        kinds = self.unpacked_kinds(target, value)
        for item, kind in zip(target.elements, kinds):
            self._bind_target(item.value, strong(kind) if kind is not None else UNKNOWN)
        return bool(kinds)

    def wrapped_modules(self, call: cst.Call) -> list[cst.BaseExpression] | None:
        """What a wrapper call hands back wrapped, in order: every argument of a framework's
        ``accelerator.prepare(model, optimizer, loader)``, the module of
        ``DistributedDataParallel(model)``, ``DataParallel(model)`` or ``torch.compile(model)``
        (whose forward runs that module's); None for any other call."""
        arguments = self._wrapped_arguments(call)
        if arguments is not None:
            return arguments
        first = call.args[0] if call.args else None
        if first is None or first.keyword is not None or first.star or self.call_name(call) not in torch_api.FORWARDING_WRAPPERS:
            return None
        return [first.value]

    def _wrapped_arguments(self, call: cst.Call) -> list[cst.BaseExpression] | None:
        """The arguments of a framework call that returns them wrapped, in order."""
        receiver_method = method_call(call)
        if receiver_method is None or any(argument.star or argument.keyword for argument in call.args):
            return None
        framework = self.framework_of(receiver_method[0])
        if framework is None or receiver_method[1] not in framework.wrapping_methods:
            return None
        return [argument.value for argument in call.args]

    @staticmethod
    def made_for_one_process(call: cst.Call, maker: str) -> bool:
        """``Fabric(devices=1)``: a framework object made for one process only."""
        framework = idioms.framework_made_by(maker)
        keyword = framework.process_count_keyword if framework is not None else None
        argument = keyword_argument(call, keyword) if keyword is not None else None
        return argument is not None and isinstance(argument.value, cst.Integer) and argument.value.value == "1"

    def is_one_process_framework(self, expression: cst.BaseExpression) -> bool:
        """The framework object ``expression`` holds was made for one process only."""
        return (self.maker_of(expression) or "").endswith(_ONE_PROCESS)

    def _project_maker(self, value: cst.BaseExpression) -> Symbol | None:
        """The class of the project that ``value`` (a call) instantiates, as the index names it:
        also a class of this file built by its own classmethod (``Tokenization.from_tokenizer(...)``
        returning ``cls(...)``) whose bases come from other files."""
        value = construction(value)
        if type(value) is not cst.Call or self.project is None:
            return None
        func = value.func  # type: ignore[attr-defined]
        owner = references.class_named(self.binder, func.value.value) if type(func) is cst.Attribute and type(func.value) is cst.Name else None
        method = methods_of(owner).get(func.attr.value) if owner is not None else None
        if method is not None and references.returns_own_instance(method, owner.name.value) and self.module_class_condition(owner) is not None:  # type: ignore[union-attr]
            return Symbol(None, owner.name.value)  # type: ignore[union-attr]
        return self._project_class(func)

    def _project_class(self, expression: cst.BaseExpression) -> Symbol | None:
        """What ``expression`` (a callee, an annotation) names in another project file."""
        symbol = self.project.symbol_of(expression) if self.project is not None else None
        return symbol if symbol is not None and not symbol.is_local else None

    def module_condition(self, expression: cst.BaseExpression, *, named_as_one: bool = False) -> Condition | None:
        """For a value made by a class of another project file (``self.norm = DishTS(...)``
        with ``DishTS`` imported from ``layers.py``), or for such a call itself: the condition
        under which it is a module; for a parameter that only other files fill (or ``self.<attr>``
        storing one), the condition that they all pass a module. With ``named_as_one`` (its
        name suggests a module), the condition under which the project does not show otherwise
        (a plain class)."""
        symbol = self._maker_symbol(expression)
        if symbol is None:
            return None if named_as_one else self._passed_module_condition(expression)
        return Condition(symbol, MAY_BE_MODULE if named_as_one else TORCH_MODULE, YES)

    def _passed_module_condition(self, expression: cst.BaseExpression) -> Condition | None:
        """For a parameter that no call of this file fills, or ``self.<attr>`` the class stores
        only such a constructor parameter in (``self.p = p``): the condition under which every
        call in the project's other files passes an instance of a module class for it."""
        attribute, owner = self_attribute(expression), self.current_class
        stored = self.values_stored_in(owner, attribute) if attribute is not None and owner is not None and self.project is not None else [expression]
        if len(stored) != 1:
            return None
        maker = self._maker_passed_here(stored[0])
        return Condition(maker, TORCH_MODULE, YES) if maker is not None else self._passed_condition(stored[0], PASSED_MODULE, YES)

    def _maker_passed_here(self, expression: cst.BaseExpression) -> Symbol | None:
        """For a name still bound to a parameter that every call of this file fills with an
        instance of the same class of another project file (``EncodecModel(encoder, decoder,
        quantizer)`` after ``quantizer = qt.ResidualVectorQuantizer(...)``): that class."""
        bindings = self.binder.bindings_before(expression) if type(expression) is cst.Name else []  # type: ignore[arg-type]
        param = bindings[0].node if len(bindings) == 1 and type(bindings[0].node) is cst.Param else None
        makers = {self._project_maker(value) if type(value) is cst.Call else None for value in self.values_passed_to(param)} if param is not None else set()  # type: ignore[arg-type]
        return makers.pop() if len(makers) == 1 else None

    def _passed_condition(self, expression: cst.BaseExpression, flag: str, value: str) -> Condition | None:
        """For a name still bound to a parameter of a top-level function or of a method of a
        top-level class, that no call of this file fills: the ``<flag>:<parameter>:<position>``
        condition the other files' calls decide."""
        bindings = self.binder.bindings_before(expression) if type(expression) is cst.Name and self.project is not None else []  # type: ignore[arg-type]
        param = bindings[0].node if len(bindings) == 1 and type(bindings[0].node) is cst.Param else None
        found = references.top_level_parameter(self.binder, param) if param is not None and not self.values_passed_to(param) else None  # type: ignore[arg-type]
        return Condition(Symbol(None, found[0]), f"{flag}:{param.name.value}:{found[1]}", value) if found is not None else None  # type: ignore[union-attr]

    def submodule_conditions(self, expression: cst.BaseExpression) -> tuple[Condition, ...]:
        """For ``owner.attribute`` of a module whose class the file does not show (``self.model.outc``
        of a model another file builds): the project conditions under which the attribute holds a
        module - a class of the project assigns ``self.<attribute>`` a module it constructs, and
        none assigns it anything else. () when the kind is known here, or the owner is no module."""
        if type(expression) is not cst.Attribute or self.kind_of(expression) is not None:
            return ()
        if self.kind_of(expression.value) is not Kind.MODULE:  # type: ignore[attr-defined]
            return ()
        attribute = expression.attr.value  # type: ignore[attr-defined]
        return (
            Condition(THIS_FILE, f"{PROJECT}:{MODULE_ATTRIBUTES}:{attribute}", YES),
            Condition(THIS_FILE, f"{PROJECT}:{OTHER_ATTRIBUTES}:{attribute}", NO),
        )

    def passed_kind_condition(self, expression: cst.BaseExpression, kind: str) -> Condition | None:
        """For a parameter of a top-level function or of a method of a top-level class that no
        call of this file fills: the condition under which every call in the project's other
        files passes a value of ``kind`` ("tensor", "graph") for it."""
        return self._passed_condition(expression, PASSED_KIND, kind)

    def returned_kind_condition(self, expression: cst.BaseExpression, kind: str, *, of_calls: bool = False, depth: int = 0) -> Condition | None:
        """For a name bound to what a function or method of another project file returns
        (``t, w = self.sampler.sample(n)``, the sampler's class imported from ``resample.py``):
        the condition under which it is of ``kind`` ("tensor", "graph", "module", "device"); with
        ``of_calls``, also for such a call itself (``.to(get_device())``). A name
        unpacked from a name bound to such a call (``losses = trainer.step(x)``, then
        ``a, b = losses``) is a graph tensor when the call returns a container of them. For
        arithmetic (``step_loss / n``), the condition of its first term that has one. A name is
        followed through the names, elements of tuples (``a, b = x[:k], x[k]``), and for a
        tensor the slices and copies (``x[i]``, ``x.float()``) it was assigned from."""
        if depth > _MAX_HOPS:
            return None
        if type(expression) is cst.BinaryOperation:
            terms = (self.returned_kind_condition(term, kind, depth=depth + 1) for term in (expression.left, expression.right))  # type: ignore[attr-defined]
            return next(filter(None, terms), None)
        source = self._same_tensor_as(expression) if kind == TENSOR else None
        if source is not None:  # `eigvals[top_q - 1]`, `eigvals.float()`: a tensor when `eigvals` is one
            return self.returned_kind_condition(source, kind, depth=depth + 1)
        if of_calls and type(expression) is cst.Call and self.project is not None:  # `.to(get_device())`
            callee = self._project_class(expression.func)  # type: ignore[attr-defined]
            return Condition(callee, returns_fact(), kind) if callee is not None else None
        if type(expression) is not cst.Name or self.project is None:
            return None
        bindings = self.binder.bindings_before(expression)  # type: ignore[arg-type]
        if len(bindings) != 1 or type(bindings[0].node) is not cst.Assign:
            return None
        assignment: cst.Assign = bindings[0].node  # type: ignore[assignment]
        index = _unpacked_position(assignment, bindings[0].target)
        call = assignment.value
        if index is not None and index >= 0 and type(call) is cst.Tuple and index < len(call.elements):
            return self.returned_kind_condition(call.elements[index].value, kind, depth=depth + 1)  # `a, b = x[:k], x[k]`
        if index is None and type(call) is not cst.Call and call is not None:
            return self.returned_kind_condition(call, kind, depth=depth + 1)  # `tail = eigvals[k]`, `x = y`
        if index is not None and type(call) is cst.Name:  # `a, b = losses`, `losses = trainer.step(x)`
            call, index, kind = references.assigned_value(self.binder, call), None, GRAPH_ENTRIES  # type: ignore[arg-type]
        if index == -1 or type(call) is not cst.Call:
            return None
        callee = self._project_class(call.func)  # type: ignore[attr-defined]
        if callee is not None:
            return Condition(callee, returns_fact(None, index), kind)
        receiver_method = method_call(call)  # type: ignore[arg-type]
        owner = self._instance_symbol(receiver_method[0]) if receiver_method is not None else None
        return Condition(owner, returns_fact(receiver_method[1], index), kind) if owner is not None else None  # type: ignore[index]

    @staticmethod
    def _same_tensor_as(expression: cst.BaseExpression) -> cst.BaseExpression | None:
        """The name whose tensor ``expression`` is part of, or a copy of in another shape, dtype
        or place: ``x[i]``, ``x.float()``; None for anything else."""
        if type(expression) is cst.Subscript and type(expression.value) in (cst.Name, cst.Subscript, cst.Call):  # type: ignore[attr-defined]
            return expression.value  # type: ignore[attr-defined]
        called = method_call(expression)
        return called[0] if called is not None and called[1] in torch_api.VALUE_KEEPING_METHODS and type(called[0]) is cst.Name else None

    def derives_condition(self, callee: cst.BaseExpression, qualified: frozenset[str]) -> Condition | None:
        """For a class of the project (``CustomDataParallel`` from ``utils.py``, or one of this
        file): the condition under which it derives from one of the ``qualified`` classes."""
        symbol = self.project.symbol_of(callee) if self.project is not None else None
        if symbol is None or not symbol.is_local and symbol.level == 0 and f"{symbol.module}.{symbol.name}" in qualified:
            return None
        return Condition(symbol, f"{DERIVES}:{','.join(sorted(qualified))}", YES)

    def _instance_symbol(self, receiver: cst.BaseExpression) -> Symbol | None:
        """The class of another project file whose instance ``receiver`` holds: a name bound
        once to ``Cls(...)``, or ``self.<attr>`` the class sets only to ``Cls(...)``."""
        symbols = {self._project_maker(value) for value in self._instance_makers(receiver)}
        return symbols.pop() if len(symbols) == 1 else None

    def _instance_makers(self, receiver: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The values that made the object ``receiver`` holds: a name's, when one assignment
        binds it, or what every caller of the file passes for a parameter; every value the
        class stores in ``self.<attr>``."""
        if type(receiver) is cst.Name:
            value = references.assigned_value(self.binder, receiver)  # type: ignore[arg-type]
            if value is not None:
                return [value]
            bindings = self.binder.bindings_before(receiver)  # type: ignore[arg-type]
            param = bindings[0].node if len(bindings) == 1 and type(bindings[0].node) is cst.Param else None
            return self.values_passed_to(param, of_methods=False) if param is not None else []  # type: ignore[arg-type]
        attribute = self_attribute(receiver)
        if attribute is not None and self.current_class is not None:
            return self.values_stored_in(self.current_class, attribute)
        return []

    def _binding_of(self, expression: cst.BaseExpression) -> Binding | None:
        """The binding of a name or of ``self.<attribute>``."""
        if type(expression) is cst.Name:
            return self._lookup(expression.value)  # type: ignore[attr-defined]
        if type(expression) is cst.Attribute and type(expression.value) is cst.Name and expression.value.value == "self":  # type: ignore[attr-defined]
            scope = self._class_scope()
            return scope.self_attributes.get(expression.attr.value) if scope is not None else None  # type: ignore[attr-defined]
        return None

    def maker_of(self, expression: cst.BaseExpression, *, from_callers: bool = True) -> str | None:
        """The qualified class or factory that made the value of a name or ``self.<attr>``;
        for a parameter (unless ``from_callers`` is False), the one that made what every
        caller of the file passes for it (``train(accelerator, ...)`` called with
        ``accelerator = Accelerator()``)."""
        binding = self._binding_of(expression)
        if binding is not None and binding.made_by is not None:
            return binding.made_by
        return self._maker_passed(expression) if from_callers and type(expression) is cst.Name else None  # type: ignore[arg-type]

    def _maker_passed(self, name: cst.Name) -> str | None:
        bound = self.flow.last_binding(name.value)
        if bound is None or type(bound.node) is not cst.Param:
            return None
        param: cst.Param = bound.node  # type: ignore[assignment]
        if param not in self._passed_makers:
            makers = {self.call_name(value) if type(value) is cst.Call else None for value in self.values_passed_to(param)}  # type: ignore[arg-type]
            self._passed_makers[param] = makers.pop() if len(makers) == 1 else None
        return self._passed_makers[param]

    def framework_of(self, expression: cst.BaseExpression) -> idioms.Framework | None:
        """The framework object ``expression`` holds (an ``Accelerator``, a ``Fabric``, a
        DeepSpeed engine), known from the call that made it."""
        if self._makes_frameworks is None:
            self._makes_frameworks = self._text is None or any(word in self._text for word in idioms.FRAMEWORK_TEXT)
        maker = self.maker_of(expression, from_callers=self._makes_frameworks)
        return idioms.framework_made_by(maker.removesuffix(_ONE_PROCESS) if maker is not None else None)

    def accumulation_window(self, node: cst.CSTNode) -> cst.With | None:
        """The innermost ``with`` around ``node`` that opens a framework's accumulation window
        (``with accelerator.accumulate(model):``), inside which the framework skips the prepared
        optimizer's ``step()`` and ``zero_grad()`` until the window's last micro-batch."""
        for ancestor in self.binder.ancestors(node):
            if type(ancestor) is cst.With and any(map(self._opens_accumulation, ancestor.items)):  # type: ignore[attr-defined]
                return ancestor  # type: ignore[return-value]
        return None

    def _opens_accumulation(self, item: cst.WithItem) -> bool:
        receiver_method = method_call(item.item) if type(item.item) is cst.Call else None
        framework = self.framework_of(receiver_method[0]) if receiver_method is not None else None
        return framework is not None and receiver_method[1] in framework.accumulation_methods  # type: ignore[index]

    def backward_subject(self, call: cst.Call) -> cst.BaseExpression | None:
        """The loss that ``call`` backpropagates, however it is spelled: ``loss.backward()``,
        ``torch.autograd.backward(loss)``, ``accelerator.backward(loss)``,
        ``self.manual_backward(loss)`` in a Lightning module; None for any other call."""
        receiver_method = method_call(call)
        if receiver_method is None:
            if self.call_name(call) in idioms.BACKWARD_FUNCTIONS and call.args:
                return call.args[0].value
            return None
        receiver, method = receiver_method
        framework = self.framework_of(receiver)
        if framework is not None:
            return call.args[0].value if method in framework.backward_methods and call.args else None
        if method in idioms.SELF_BACKWARD_METHODS and self._is_lightning_self(receiver):
            return call.args[0].value if call.args else None
        return receiver if method == "backward" else None

    def backpropagated_by_framework(self, node: cst.Return) -> cst.BaseExpression | None:
        """What a framework backpropagates once ``node`` returns it: the loss (or the dict
        holding it under ``"loss"``) a Lightning module's ``training_step`` returns, unless
        the file turns automatic optimization off."""
        function = self.flow.function
        return node.value if function in self._framework_steps and self.binder.enclosing(node, cst.FunctionDef) is function else None

    def differentiated_subject(self, call: cst.Call) -> cst.BaseExpression | None:
        """What ``call`` differentiates: what :meth:`backward_subject` says, the outputs of
        ``torch.autograd.grad(loss, params)``, or the loss a differentiable optimizer's ``step``
        is handed (``diffopt.step(loss)``, ``diffopt`` from ``higher.innerloop_ctx``)."""
        subject = self.backward_subject(call)
        if subject is not None:
            return subject
        if self.call_name(call) == "torch.autograd.grad":
            outputs = argument_for(call, 0, "outputs")
            return outputs.value if outputs is not None else None
        backpropagated = self._argument_backpropagated_by_callee(call)
        if backpropagated is not None:
            return backpropagated
        receiver_method = method_call(call)
        if receiver_method is None or receiver_method[1] != "step" or len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        receiver = receiver_method[0]
        bindings = self.binder.bindings_before(receiver) if type(receiver) is cst.Name else []  # type: ignore[arg-type]
        made_by = bindings[0].node if len(bindings) == 1 else None
        differentiable = type(made_by) is cst.WithItem and self.call_name(made_by.item) in idioms.DIFFERENTIABLE_OPTIMIZER_CONTEXTS  # type: ignore[union-attr,arg-type]
        return call.args[0].value if differentiable else None

    def _argument_backpropagated_by_callee(self, call: cst.Call) -> cst.BaseExpression | None:
        """``self._backward(loss, optimizer)``: the argument a function of the file
        backpropagates (its parameter's ``backward()``)."""
        summary = self.call_summary(call)
        if summary is None or not summary.does(idioms.Effect.BACKWARD):
            return None
        resolved = self.resolve_call(call)
        arguments = resolved.arguments if resolved is not None else None
        callee = self.summary_of(resolved.function) if resolved is not None else None
        for effect in callee.effects if callee is not None and arguments is not None else ():
            if effect.action == idioms.Effect.BACKWARD and effect.target in arguments:  # type: ignore[operator]
                return arguments[effect.target]  # type: ignore[index]
        return None

    def backpropagated_after(self, holder: cst.Name, region: cst.CSTNode) -> bool:
        """Whether what the name ``holder`` holds is backpropagated (or otherwise differentiated)
        by code after ``region`` (a loop, say): a later read of it inside what a backward call
        backpropagates (``torch.stack(losses).sum().backward()``), or one assigned to a name
        that is (``loss = losses[i]``, then ``accelerator.backward(loss)``; ``mean = total / n``,
        then ``torch.autograd.grad(mean, params)``), or a loop over it whose items are
        (``for loss in losses: loss.backward()``)."""
        binder = self.binder
        return any(
            binder.precedes(region, reference) and not any(node is region for node in binder.ancestors(reference)) and self._differentiates(reference)
            for binding in binder.bindings_before(holder) for reference in binder.references_to(binding)
        )

    def backpropagated_by_a_later_call(self, holder: cst.BaseExpression, region: cst.CSTNode) -> bool:
        """Whether code after ``region``, in the function around it, calls a function of this
        file that backpropagates and reads what ``holder`` holds: a list kept on a module-level
        object (``critic.saved_values``, which ``update()`` reads after the episode), or one
        handed to it (``update(saved_values)``)."""
        path, binder = dotted_name(holder), self.binder
        outer = binder.enclosing(region, cst.FunctionDef) or self._module
        if path is None or outer is None:
            return False
        for call in (node for node in subtree(outer) if type(node) is cst.Call):
            if not binder.precedes(region, call) or any(node is region for node in binder.ancestors(call)):
                continue
            resolved = self.resolve_call(call)  # type: ignore[arg-type]
            if resolved is None or not self.summary_of(resolved.function).does(idioms.Effect.BACKWARD):
                continue
            if any(dotted_name(argument.value) == path for argument in call.args) or self._reads_module_level(resolved.function, path):  # type: ignore[attr-defined]
                return True
        return False

    def _reads_module_level(self, function: cst.FunctionDef, path: str) -> bool:
        """``function`` reads ``path`` (``critic.saved_values``) through a module-level name."""
        module_scope = self.binder.module_scope
        return any(
            type(node) in (cst.Name, cst.Attribute) and dotted_name(node) == path
            and all(binding.scope is module_scope for binding in self.binder.reaching(root_name_node(node)))  # type: ignore[arg-type]
            for node in subtree(function)
        )

    def differentiated_whole_later_in(self, holder: cst.Name, statement: cst.CSTNode, loop: cst.CSTNode) -> bool:
        """Whether code of ``loop`` after ``statement`` differentiates everything the name
        ``holder`` holds at once (``torch.stack(losses).sum().backward()`` every few tasks,
        before the list is renewed): what it keeps until then is kept for that backward."""
        binder = self.binder
        return any(
            binder.precedes(statement, reference) and any(node is loop for node in binder.ancestors(reference))
            and type(binder.parent(reference)) is not cst.Subscript and self._differentiates(reference)
            for binding in binder.bindings_before(holder) for reference in binder.references_to(binding)
        )

    def differentiated(self, holder: cst.Name) -> bool:
        """Whether what the name ``holder`` holds where it is read is backpropagated (or
        otherwise differentiated) by any read of it, before or after this one."""
        binder = self.binder
        return any(self._differentiates(reference) for binding in binder.reaching(holder) for reference in binder.references_to(binding))

    def _differentiates(self, reference: cst.Name) -> bool:
        if self._read_by_differentiation(reference):
            return True
        binder = self.binder
        statement = binder.statement_of(reference)
        if type(statement) is cst.Assign:
            targets = [target.target for target in statement.targets]  # type: ignore[attr-defined]
        elif type(statement) is cst.For and any(node is statement.iter for node in (reference, *binder.ancestors(reference))):  # type: ignore[attr-defined]
            targets = [statement.target]  # type: ignore[attr-defined]
        else:
            return False
        names = [node for target in targets for node in subtree(target) if type(node) is cst.Name]
        bound = [binder.binding_made_by(name) for name in names]
        return any(self._read_by_differentiation(use) for made in bound if made is not None for use in binder.references_to(made))

    def _read_by_differentiation(self, node: cst.CSTNode) -> bool:
        for ancestor in self.binder.ancestors(node):
            if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return False
            if type(ancestor) is cst.Call and self.differentiated_subject(ancestor) is not None:  # type: ignore[arg-type]
                return True
        return False

    def _is_lightning_self(self, receiver: cst.BaseExpression) -> bool:
        current = self.current_class
        if current is None or not (type(receiver) is cst.Name and receiver.value == "self"):  # type: ignore[attr-defined]
            return False
        return self._is_lightning_module(current)

    def _annotated(self, annotation: cst.Annotation | None, name: str | None = None) -> Inferred:
        """What an annotation says; a ``str`` named as a device (``device: str``) is a device
        spelled as a string, which ``.to()`` takes like a ``torch.device``."""
        if annotation is None:
            return UNKNOWN
        annotated = _without_none(annotation.annotation)
        if name is not None and dotted_name(annotated) == "str" and conventional_kind(name) is Kind.DEVICE:
            return conventional(name)
        return inferred(self._class_kind(annotated), Evidence.ANNOTATION)

    def annotated_item_kind(self, annotation: cst.Annotation | None) -> Kind | None:
        """The kind of the items an annotation says a container holds: ``list[nn.Module]``,
        ``Optional[Sequence[nn.Module]]``, ``tuple[nn.Module, ...]``; None for anything else."""
        annotated = _without_none(annotation.annotation) if annotation is not None else None
        if type(annotated) is not cst.Subscript or (dotted_name(annotated.value) or "").rpartition(".")[2] not in _ITEM_CONTAINERS:  # type: ignore[attr-defined]
            return None
        items = [element.slice.value for element in annotated.slice if type(element.slice) is cst.Index]  # type: ignore[attr-defined]
        return self._class_kind(items[0]) if items and not (len(items) == 2 and type(items[1]) is not cst.Ellipsis) else None

    def _items_of(self, iterable: cst.BaseExpression) -> _Items:
        """What a loop over ``iterable`` draws, through ``enumerate``, ``tqdm``, ``iter``,
        ``zip``, ``list``, ``reversed`` and slices: batches of a dataloader, submodules of a
        module, or nothing known."""
        if isinstance(iterable, cst.Call) and iterable.args:
            wrapper = self.qualified_name(iterable.func) or dotted_name(iterable.func)
            if wrapper == "zip":
                if any(argument.star or argument.keyword is not None for argument in iterable.args):
                    return _NOTHING_KNOWN
                return _Items(UNKNOWN, zipped=tuple(self._items_of(argument.value) for argument in iterable.args))
            if wrapper in torch_api.ITERATION_WRAPPERS:
                inner = self._items_of(iterable.args[0].value)
                return inner._replace(key=strong(Kind.NUMBER)) if wrapper == "enumerate" else inner
            if self._hands_on_a_loader(iterable, wrapper):
                return self._items_of(iterable.args[0].value)
        if type(iterable) is cst.Subscript and all(type(element.slice) is cst.Slice for element in iterable.slice):  # type: ignore[attr-defined]
            return self._items_of(iterable.value)  # type: ignore[attr-defined]  # `list(model.children())[:-2]`: some of the same items
        submodules = self._submodules_of(iterable)
        if submodules is not None:
            return submodules
        named = self._items_of_named_value(iterable) if type(iterable) is cst.Name else None
        if named is not None:
            return named
        returned = self._returned_entries(iterable)
        if returned is not None:
            return returned
        contents = self._container_items(iterable)
        if contents is not None:
            return contents
        loader = self.kind_and_evidence(iterable)
        if loader.kind is Kind.DATALOADER:
            return _Items(Inferred(Kind.TENSOR, loader.evidence), batches=True)
        return _NOTHING_KNOWN

    def _items_of_named_value(self, name: cst.Name) -> _Items | None:
        """A loop over a name bound to what a call or a slice gave (``modules =
        list(resnet.children())[:-2]``): what a loop over that value draws."""
        binding = self.flow.reaching_binding(name.value)
        value = binding.value if binding is not None else None
        if type(value) not in (cst.Call, cst.Subscript) or self._iterables_followed >= _MAX_HOPS:
            return None
        self._iterables_followed += 1
        try:
            found = self._items_of(value)  # type: ignore[arg-type]
        finally:
            self._iterables_followed -= 1
        return found if found is not _NOTHING_KNOWN else None

    def _hands_on_a_loader(self, call: cst.Call, callee: str | None) -> bool:
        """``metric_logger.log_every(loader, 20, header)``, ``prefetch(loader)``: a call of
        something not of torch handed a dataloader first, whose items the loop draws: what it
        yields are the loader's batches, logged or moved on the way."""
        first = call.args[0]
        if first.keyword is not None or first.star or (callee or "").startswith("torch."):
            return False
        return self.kind_of(first.value) is Kind.DATALOADER

    def _returned_entries(self, iterable: cst.BaseExpression) -> _Items | None:
        """``parts.items()`` / ``parts.values()`` of ``parts = self.train_step(batch)``, a
        function of this file that returns a container of the losses it backpropagated: the
        entries carry the graph (``totals[name] += value`` keeps it)."""
        receiver_method = method_call(iterable)
        if receiver_method is None or receiver_method[1] not in ("items", "values") or iterable.args or self._elsewhere:  # type: ignore[attr-defined]
            return None
        holder, method = receiver_method
        binding = self.flow.reaching_binding(holder.value) if isinstance(holder, cst.Name) else None
        value = binding.value if binding is not None else None
        summary = self.call_summary(value) if isinstance(value, cst.Call) else None
        if summary is None or not summary.returns.graph_entries:
            return None
        return _Items(strong(Kind.GRAPH_TENSOR), key=strong(Kind.OTHER) if method == "items" else None)

    def _container_items(self, iterable: cst.BaseExpression) -> _Items | None:
        """A loop over a container the code builds - a list, a tuple or a comprehension, here
        or bound to the name iterated - or over an ``nn.ModuleList``/``nn.Sequential``: what
        its items are (tuples position by position). None when the code shows no container."""
        if self.maker_of(iterable) in _MODULE_SEQUENCES:
            return _Items(strong(Kind.MODULE))
        value: cst.BaseExpression | None = iterable
        if isinstance(iterable, cst.Name):
            binding = self.flow.reaching_binding(iterable.value)
            value = binding.value if binding is not None else None
            appended = appended_items(self.binder, iterable) if is_empty_list(value) and not self._elsewhere else None
            if appended is not None:
                return self._items_like(appended)
        if isinstance(value, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self._items_like([value.elt])
        if isinstance(value, (cst.List, cst.Tuple, cst.Set)) and value.elements:
            if any(isinstance(element, cst.StarredElement) for element in value.elements):
                return None
            return self._items_like([element.value for element in value.elements])
        return None

    def _items_like(self, items: list[cst.BaseExpression]) -> _Items:
        """What a loop draws from these items: their common kind, or tuples of one width
        unpacked position by position."""
        if all(isinstance(item, cst.Tuple) for item in items) and len({len(item.elements) for item in items}) == 1:  # type: ignore[attr-defined]
            width = len(items[0].elements)  # type: ignore[attr-defined]
            positions = ([item.elements[index].value for item in items] for index in range(width))  # type: ignore[attr-defined]
            return _Items(UNKNOWN, zipped=tuple(self._items_like(position) for position in positions))
        kinds = {self.kind_and_evidence(item) for item in items}
        return _Items(kinds.pop()) if len(kinds) == 1 else _NOTHING_KNOWN

    def _submodules_of(self, iterable: cst.BaseExpression) -> _Items | None:
        """``model.modules()``, ``self.named_children()`` ...: modules, as surely as the
        receiver is one (by convention when only the method's name says so)."""
        if not isinstance(iterable, cst.Call) or iterable.args:
            return None
        receiver_method = method_call(iterable)
        if receiver_method is None or receiver_method[1] not in _SUBMODULE_ITERATORS:
            return None
        receiver, method = receiver_method
        owner = self.kind_and_evidence(receiver)
        evidence = owner.evidence if owner.kind is Kind.MODULE else Evidence.CONVENTION
        key = strong(Kind.OTHER) if _SUBMODULE_ITERATORS[method] else None
        return _Items(Inferred(Kind.MODULE, evidence), key=key)

    def _bind_items(self, target: cst.BaseExpression, items: _Items) -> None:
        """Bind a loop target to what the loop draws: pairs and zipped items unpack position
        by position; a name bound to a whole item of a dataloader is a batch."""
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else None
        if items.key is not None:
            if elements is not None and len(elements) == 2:
                self._bind_target(elements[0].value, items.key)
                self._bind_items(elements[1].value, items._replace(key=None))
            else:
                self._bind_target(target, UNKNOWN)  # a whole (key, item) pair
            return
        if items.zipped:
            if elements is not None and len(elements) == len(items.zipped):
                for element, part in zip(elements, items.zipped):
                    self._bind_items(element.value, part)
            else:
                self._bind_target(target, UNKNOWN)
            return
        self._bind_target(target, items.element, batch=items.batches)

    # ----------------------------------------------------------------- isinstance narrowing
    def _narrow(self, node: cst.If) -> None:
        """Note what names hold in the branches of ``if isinstance(name, X):`` (and of
        ``if not isinstance(...)``, and ``and`` chains of them in the body)."""
        tests = _isinstance_tests(node.test)
        for name, classes, negated in tests:
            self._narrowings.setdefault(node.body, []).append((name, classes, not negated))
        if len(tests) == 1 and isinstance(node.orelse, cst.Else) and not isinstance(node.test, cst.BooleanOperation):
            name, classes, negated = tests[0]
            self._narrowings.setdefault(node.orelse.body, []).append((name, classes, negated))

    def _narrow_rest_of_block(self, test: cst.BaseExpression, holds: bool) -> None:
        """``if not isinstance(name, X): raise ...`` (``holds`` False: the test failed to get
        past it) or ``assert isinstance(name, X)`` (True): what ``name`` holds for the rest of
        the block."""
        tests = _isinstance_tests(test)
        if len(tests) != 1 or isinstance(test, cst.BooleanOperation):
            return
        name, classes, negated = tests[0]
        narrowed = self._narrowed(self._infer_name(name), classes, holds != negated)
        if narrowed is not None:
            self._install_narrowing(self._blocks[-1] if self._blocks else None, name, narrowed)

    def _install_narrowing(self, block: cst.CSTNode | None, name: str, narrowed: Inferred) -> None:
        bindings, binding = self._scopes[-1].bindings, Binding.of(narrowed)
        if block is not None:
            self._narrowed_blocks.setdefault(block, []).append((name, bindings.get(name), binding))
        bindings[name] = binding

    def _enter_block(self, block: cst.CSTNode) -> None:
        self._blocks.append(block)
        for name, classes, holds in self._narrowings.pop(block, ()):
            narrowed = self._narrowed(self._infer_name(name), classes, holds)
            if narrowed is not None:
                self._install_narrowing(block, name, narrowed)

    def _leave_block(self, block: cst.CSTNode) -> None:
        """Undo the narrowing unless the block assigned the name itself."""
        self._blocks.pop()
        bindings = self._scopes[-1].bindings
        for name, previous, binding in reversed(self._narrowed_blocks.pop(block, [])):
            if bindings.get(name) is binding:
                if previous is None:
                    del bindings[name]
                else:
                    bindings[name] = previous

    def _narrowed_where_read(self, name: cst.Name, current: Inferred) -> Inferred | None:
        """Away from the walk: what an ``isinstance`` test that holds wherever ``name`` is read
        says it holds (inside ``if isinstance(module, nn.Linear):``, after ``if not
        isinstance(x, T): raise``), when every binding that reaches the read comes before
        the test."""
        if self._text is not None and "isinstance(" not in self._text:
            return None
        bindings = self.binder.bindings_before(name)
        for held in guards.known_at(self.binder, name):
            tests = _isinstance_tests(held.test)
            if len(tests) == 1 and tests[0][0] == name.value and all(self.binder.precedes(binding.node, held.test) for binding in bindings):
                return self._narrowed(current, tests[0][1], held.holds != tests[0][2])
        return None

    def _narrowed(self, current: Inferred, classes: list[cst.BaseExpression], holds: bool) -> Inferred | None:
        """What a name holds where ``isinstance(name, classes)`` is ``holds``; None: unchanged."""
        kinds = {self._class_kind(expression) for expression in classes}
        if not holds:
            # the failed check rules out the kinds it tests for, whatever an annotation said
            ruled_out = current.kind is not None and any(
                kind is not None and _refines(current.kind, kind) for kind in kinds
            )
            return UNKNOWN if ruled_out else None
        kind = kinds.pop() if len(kinds) == 1 else None
        if kind is not None and current.kind is not None and _refines(current.kind, kind):
            return Inferred(current.kind, Evidence.STRONG)  # keep what is known: a graph tensor is a tensor
        return strong(kind) if kind is not None else UNKNOWN  # an instance of an unknown class: no convention

    # ----------------------------------------------------------------- walk hooks
    def visit_Module(self, node: cst.Module) -> None:
        self._module = node
        self._scopes.append(Scope(node))
        self.module_classes.update(_top_level_module_classes(node))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind_import(alias.asname.name.value, full)
            else:
                root = full.split(".", 1)[0]
                self._bind_import(root, root)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            self._bind_star_import(node)
            return
        if node.relative or node.module is None:
            for alias in node.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(local, cst.Name):
                    self._bind_known(local.value)
            return
        module = dotted_name(node.module)
        for alias in node.names:
            local = alias.asname.name if alias.asname is not None else alias.name
            imported = dotted_name(alias.name)
            if isinstance(local, cst.Name) and imported is not None:
                self._bind_import(local.value, f"{module}.{imported}")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        verdicts = [self._is_module_base(base.value) for base in node.bases]
        if any(verdicts):
            self.module_classes.add(node.name.value)
        elif verdicts and all(verdict is False for verdict in verdicts):
            self.module_classes.discard(node.name.value)  # e.g. flax's or equinox's Module
        self._classes.append(node)
        self._scopes.append(Scope(node, is_class=True))
        self._frames.append(Frame())
        self.flow.visit_ClassDef(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.flow.leave_ClassDef(node)
        self._frames.pop()
        self._scopes.pop()
        self._classes.pop()
        self._scopes[-1].bindings[node.name.value] = (
            _MODULE_CLASS if self.is_module_class(node) else Binding.of(strong(Kind.OTHER))
        )

    def _is_module_base(self, base: cst.BaseExpression) -> bool | None:
        """True/False when the base resolves; None when it is a name the file does not import."""
        qualified = self.qualified_name(base)
        if qualified is not None:
            return torch_api.is_module_class_name(qualified)
        name = dotted_name(base)
        if name is not None and name.rsplit(".", 1)[-1] in self.module_classes:
            return True
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # The last decorator wraps the function first, so its mode is the innermost one.
        modes = [grad_mode_of(self.qualified_name, decorator.decorator) for decorator in node.decorators]
        unknown = [_decorator_target(decorator) for decorator, mode in zip(node.decorators, modes) if mode is None]
        conditions = tuple(filter(None, map(self._grad_condition, unknown)))
        if any(map(self._defined_here_off, unknown)):
            modes.append(GradMode.UNKNOWN)
        # a function nested in another runs inside its call: under the encloser's decorators
        enclosing = self._frames[-1] if self.flow.function is not None else Frame()
        inherited = enclosing.grad_modes[: enclosing.decorated]
        own = [*inherited, *(mode for mode in modes if mode is not None)]
        self._scopes.append(Scope(node))
        self._frames.append(Frame(grad_modes=own, grad_conditions=(*enclosing.grad_conditions, *conditions), decorated=len(own)))
        positional = (*node.params.posonly_params, *node.params.params)
        for param in (*positional, *node.params.kwonly_params):
            self._bind_parameter(node, param)
        if positional and positional[0].name.value == "self" and self.in_module_class and not _is_static(node):
            self.bind("self", strong(Kind.MODULE))
        for star in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(star, cst.Param):
                self.bind(star.name.value, strong(Kind.OTHER))
        self.flow.visit_FunctionDef(node)
        if self._runs_per_batch(node):
            self.flow.visit_loop(node)
            self._loop_calls[node] = []
            self._dataloader_loops.add(node)
            if node.name.value in idioms.BACKPROPAGATED_RETURNS and (self._text is None or not idioms.MANUAL_OPTIMIZATION.search(self._text)):
                self._framework_steps.add(node)

    def _runs_per_batch(self, function: cst.FunctionDef) -> bool:
        """A method a framework's training loop calls once per batch (Lightning's
        ``training_step``): its body is one iteration of that loop."""
        owner = self._method_owner()
        if owner is None:
            return False
        return function.name.value in idioms.PER_BATCH_METHODS and self._is_lightning_module(owner) or self._counts_its_calls(function)

    def _counts_its_calls(self, function: cst.FunctionDef) -> bool:
        """A method that counts its calls on ``self`` and tests the count (``self.counter += 1``,
        ``if self.counter % self.accumulation == 0:``): each call is one iteration of its
        callers' loop, by the code's own account. A count kept in a loop of the method counts
        that loop's passes (an epoch method stepping per batch), not the method's calls."""
        if self._text is not None and "%" not in self._text:
            return False
        counted, tested = set(), set()
        for node in subtree(function.body, prune=lambda node: type(node) in (cst.For, cst.While)):
            if type(node) is cst.AugAssign and type(node.operator) is cst.AddAssign:  # type: ignore[attr-defined]
                counted.add(self_attribute(node.target))  # type: ignore[attr-defined]
            elif type(node) is cst.BinaryOperation and type(node.operator) is cst.Modulo:  # type: ignore[attr-defined]
                tested.add(self_attribute(node.left))  # type: ignore[attr-defined]
        return bool(counted & tested - {None})

    def runs_before_the_step(self, function: cst.FunctionDef) -> bool:
        """A function a framework calls when a run, an epoch or a batch starts, before that
        pass's optimizer step: a Lightning module's or callback's ``on_train_epoch_start``, or
        an Ignite handler of ``Events.EPOCH_STARTED`` (decorated with ``@trainer.on(...)`` or
        registered with ``trainer.add_event_handler(...)``)."""
        owner = references.class_of_method(self.binder, function)
        if owner is not None and function.name.value in idioms.HOOKS_BEFORE_THE_STEP:
            bases = {self.qualified_name(base.value) for base in owner.bases}
            return bool(bases & (idioms.LIGHTNING_MODULES | idioms.LIGHTNING_CALLBACKS))
        registrations = [decorator.decorator for decorator in function.decorators]
        binding = self.binder.binding_made_by(function.name)
        for use in binding.references if binding is not None else ():
            argument = self.binder.parent(use)
            registrations.append(self.binder.parent(argument) if type(argument) is cst.Arg else None)  # type: ignore[arg-type]
        return any(self._registers_for_a_starting_event(call) for call in registrations)

    def _registers_for_a_starting_event(self, call: cst.CSTNode | None) -> bool:
        if type(call) is not cst.Call or type(call.func) is not cst.Attribute or not call.args:  # type: ignore[union-attr]
            return False
        event = call.args[0].value  # type: ignore[union-attr]
        if type(event) is cst.Call:
            event = event.func  # `Events.EPOCH_STARTED(every=2)`
        return call.func.attr.value in idioms.EVENT_REGISTRATIONS and self.qualified_name(event) in idioms.EVENTS_BEFORE_THE_STEP  # type: ignore[union-attr]

    def _is_lightning_module(self, class_def: cst.ClassDef) -> bool:
        return any(self.qualified_name(base.value) in idioms.LIGHTNING_MODULES for base in class_def.bases)

    def _method_owner(self) -> cst.ClassDef | None:
        """The class whose body holds the ``def`` being entered (its scope is pushed already)."""
        return self._classes[-1] if len(self._scopes) > 1 and self._scopes[-2].is_class else None

    def _bind_parameter(self, function: cst.FunctionDef, param: cst.Param) -> None:
        """An annotation, else the name's convention, else (asked on first use) what every
        call of the function in this file passes."""
        name = param.name.value
        if param.annotation is not None or conventional(name).kind is not None or not self._is_called_in_file(function.name.value):
            annotated = self._annotated(param.annotation, name)  # `operator: LinearOperator` of another file: a module if it is one
            symbol = self._project_class(param.annotation.annotation) if param.annotation is not None and annotated.kind is None else None
            self.bind(name, annotated, maker_symbol=symbol)
            return
        distant, owner = self._distant_kinds(), self._method_owner()
        self._scopes[-1].bindings[name] = Binding(pending=lambda: distant.parameter(function, param, owner))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.flow.loops == (node,):
            self.flow.leave_loop(node)  # the iteration a per-batch method is
        self.flow.leave_FunctionDef(node)
        self._frames.pop()
        self._scopes.pop()
        self._scopes[-1].bindings[node.name.value] = Binding.of(strong(Kind.OTHER))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.append(Scope(node))
        for param in node.params.params:
            self.bind(param.name.value, UNKNOWN)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.pop()

    def visit_Call(self, node: cst.Call) -> None:
        name = called_name(node)
        if name is not None:
            for loop in self.flow.loops:
                self._loop_calls[loop].append((name, node))
        if name == "update" and _copies_locals_to_self(node):
            self._bind_locals_as_attributes()

    def _bind_locals_as_attributes(self) -> None:
        """``self.__dict__.update(locals())``: every local of the method is now an attribute."""
        scope = self._class_scope()
        if scope is None or self._scopes[-1].is_class:
            return
        for name, binding in self._scopes[-1].bindings.items():
            if binding.qualified_name is None:
                scope.self_attributes[name] = binding

    def calls_in_loop(self, loop: cst.For | cst.While) -> list[tuple[str, cst.Call]]:
        """``(last name of the callee, call)`` for every call inside ``loop`` seen so far,
        nested loops included and nested function bodies excluded. Complete at ``leave_For``."""
        return self._loop_calls.get(loop, [])

    def iterates_dataloader(self, loop: cst.For | cst.While) -> bool:
        return loop in self._dataloader_loops

    def is_training_loop(self, loop: cst.For | cst.While) -> bool:
        """A loop whose body calls ``.backward()``, itself or through a function of the file it
        calls (a helper, a closure, a method of ``self``), and that repeats it: a loop whose
        body ends by leaving it (``return``, ``break``) only retries a failed step. Complete
        when the loop is left."""
        if passes_once(loop):
            return False
        return any(self._backpropagates(name, call) for name, call in self.calls_in_loop(loop))

    def _backpropagates(self, name: str, call: cst.Call) -> bool:
        if name in _BACKWARD_METHOD_NAMES and self.backward_subject(call) is not None:
            return True
        summary = self.call_summary(call)
        return summary is not None and summary.does(idioms.Effect.BACKWARD)

    def visit_For(self, node: cst.For) -> None:
        items = self._items_of(node.iter)
        self._bind_items(node.target, items)
        self.flow.visit_loop(node)
        self._loop_calls[node] = []
        if items.batches or any(part.batches for part in items.zipped):
            self._dataloader_loops.add(node)

    def leave_For(self, node: cst.For) -> None:
        self.flow.leave_loop(node)

    def visit_While(self, node: cst.While) -> None:
        self.flow.visit_loop(node)
        self._loop_calls[node] = []

    def leave_While(self, node: cst.While) -> None:
        self.flow.leave_loop(node)

    def _enter_with(self, node: cst.With, step: int) -> None:
        frame = self._frames[-1]
        if step > 0:
            modes = [grad_mode_of(self.qualified_name, item.item) for item in node.items]
            unknown = [_factory_or_self(item.item) for item, mode in zip(node.items, modes) if mode is None]
            if any(map(self._defined_here_off, unknown)):  # `with eval_mode(net, no_grad=True)` of this file
                modes.append(GradMode.UNKNOWN)
            opened = [mode for mode in modes if mode is not None]
            frame.grad_modes.extend(opened)  # items are entered left to right
            self._grad_regions[node] = len(opened)
            conditions = tuple(filter(None, map(self._grad_condition, unknown)))  # a manager of another project file
            frame.grad_conditions += conditions
            self._with_conditions[node] = len(conditions)
        else:
            del frame.grad_modes[len(frame.grad_modes) - self._grad_regions.pop(node, 0) :]
            kept = len(frame.grad_conditions) - self._with_conditions.pop(node, 0)
            frame.grad_conditions = frame.grad_conditions[:kept]
        if step < 0:  # what was entered, not what the items mean now: the body may rebind `torch`
            del frame.autocast[len(frame.autocast) - self._autocast_regions.pop(node, 0) :]
            return
        entered = [enabled for item in node.items if (enabled := self._autocast_entered(item)) is not None]
        frame.autocast.extend(entered)
        self._autocast_regions[node] = len(entered)

    def _autocast_entered(self, item: cst.WithItem) -> bool | None:
        """Whether ``item`` opens an enabled autocast region (torch's or a framework's);
        None when it is no autocast manager."""
        receiver_method = method_call(item.item)
        if receiver_method is not None:
            framework = self.framework_of(receiver_method[0])
            if framework is not None and receiver_method[1] in framework.autocast_methods:
                return True
        return autocast_enabled(self.qualified_name, item)

    def visit_With(self, node: cst.With) -> None:
        self._enter_with(node, +1)
        for item in node.items:
            if item.asname is not None:
                self._bind_target(item.asname.name, UNKNOWN)
                self.flow.bind_with_item(item)

    def leave_With(self, node: cst.With) -> None:
        self._enter_with(node, -1)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._handler_depth += 1

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._handler_depth -= 1

    def visit_If(self, node: cst.If) -> None:
        self._conditions.append(node)
        self._narrow(node)
        self.flow.visit_If(node)

    def leave_If(self, node: cst.If) -> None:
        self.flow.leave_If(node)
        self._conditions.pop()
        if node.orelse is None and guards.ends_in_exit(node.body):
            self._narrow_rest_of_block(node.test, holds=False)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._narrow_rest_of_block(node.test, holds=True)

    def visit_Try(self, node: cst.Try) -> None:
        self.flow.visit_Try(node)

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self.flow.visit_Try(node)

    def visit_Match(self, node: cst.Match) -> None:
        self.flow.visit_Match(node)

    def visit_Break(self, node: cst.Break) -> None:
        self.flow.visit_exit(node)

    def visit_Continue(self, node: cst.Continue) -> None:
        self.flow.visit_exit(node)

    def visit_Return(self, node: cst.Return) -> None:
        self.flow.visit_exit(node)

    def visit_Raise(self, node: cst.Raise) -> None:
        self.flow.visit_exit(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_block(node)
        self.flow.enter_block(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.flow.leave_block(node)
        self._leave_block(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_block(node)
        self.flow.enter_block(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.flow.leave_block(node)
        self._leave_block(node)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._conditions.append(node)

    def leave_IfExp(self, node: cst.IfExp) -> None:
        self._conditions.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._statements.append(node)

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._statements.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        self._bind_assignment([target.target for target in node.targets], node.value)
        self.flow.leave_Assign(node)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        annotated = self._annotated(node.annotation, (dotted_name(node.target) or "").rpartition(".")[2])
        value = self.kind_and_evidence(node.value) if node.value is not None else UNKNOWN
        self._bind_target(node.target, value if value.evidence is Evidence.STRONG or annotated.kind is None else annotated)
        self.flow.leave_AnnAssign(node)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            combined = _combine(self.kind_and_evidence(node.target), self.kind_and_evidence(node.value))
            self.bind(node.target.value, combined)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, self.kind_and_evidence(node.value))
        self.flow.leave_NamedExpr(node)

    def visit_Del(self, node: cst.Del) -> None:
        if isinstance(node.target, cst.Name):
            self.bind(node.target.value, UNKNOWN)


# A name the file calls somewhere (`train(`, `.step(`), other than in a `def` or `class` line.
_CALLED_NAME = re.compile(r"(?<!def )(?<!class )\b([A-Za-z_]\w*)\s*\(")


def _top_level_module_classes(module: cst.Module) -> set[str]:
    """Names of top-level classes that syntactically derive from ``nn.Module`` (or each other).

    Collected before the walk so that code above a class definition can still tell that
    calling the class builds a module; the walk refines this with resolved imports.
    """
    classes = [statement for statement in module.body if isinstance(statement, cst.ClassDef)]
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for class_def in classes:
            if class_def.name.value in found:
                continue
            for base in class_def.bases:
                name = dotted_name(base.value) or ""
                last = name.rsplit(".", 1)[-1]
                if last == "Module" or name.startswith(("nn.", "torch.nn.")) or last in found:
                    found.add(class_def.name.value)
                    changed = True
                    break
    return found
