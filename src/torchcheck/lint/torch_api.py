"""What the linter knows about the PyTorch API, as data.

Everything here is a plain table of qualified names; nothing imports torch.
"""

from __future__ import annotations

from torchcheck.lint import idioms
from torchcheck.lint.tensor_namespace import TENSOR_NAMESPACE

# Functions that build a new tensor from sizes or data.
TENSOR_FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "tensor as_tensor from_numpy zeros ones empty full rand randn randint randperm "
        "arange range linspace logspace eye empty_strided normal bernoulli multinomial "
        "tril_indices triu_indices complex polar"
    ).split()
)

# The legacy constructors: `torch.Tensor(3, 4)`, `torch.FloatTensor(data)`, `torch.cuda.LongTensor(...)`.
_TYPED_TENSORS = (
    "FloatTensor DoubleTensor HalfTensor BFloat16Tensor ByteTensor CharTensor ShortTensor "
    "IntTensor LongTensor BoolTensor ComplexFloatTensor ComplexDoubleTensor"
).split()
LEGACY_TENSOR_CONSTRUCTORS = frozenset(
    {"torch.Tensor", *(f"torch.{name}" for name in _TYPED_TENSORS), *(f"torch.cuda.{name}" for name in _TYPED_TENSORS)}
)

# Calls that replace a module's parameters: FSDP2's `fully_shard` swaps each for a sharded
# DTensor parameter; FSDP1 flattens them into new `FlatParameter`s (unless `use_orig_params=True`).
FSDP2_SHARDING = frozenset({"torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard"})
FSDP1_WRAPPERS = frozenset(
    {
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
        # fairscale's, which flattens too (unless `flatten_parameters=False`)
        "fairscale.nn.FullyShardedDataParallel",
        "fairscale.nn.data_parallel.FullyShardedDataParallel",
        "fairscale.nn.data_parallel.fully_sharded_data_parallel.FullyShardedDataParallel",
    }
)
PARAMETER_REPLACING = FSDP2_SHARDING | FSDP1_WRAPPERS
# Wrappers that hold the module as their child: `.eval()`, `.train()` and `.zero_grad()` on
# the wrapper reach the module it wraps.
MODULE_WRAPPERS = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel.DataParallel"}
    | {"torch.nn.parallel.DistributedDataParallel", "torch.nn.DistributedDataParallel"}
)

# The deprecated wrapper: `Variable(t)` returns the tensor itself.
VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})

# Functions whose inputs decide device and dtype; they return a tensor.
TENSOR_LIKE_FACTORIES = frozenset(
    f"torch.{name}"
    for name in "zeros_like ones_like empty_like full_like rand_like randn_like randint_like".split()
)

# torch.* operations that take tensors and return one tensor (graph flows through them).
TENSOR_OPS = frozenset(
    f"torch.{name}"
    for name in (
        "cat concat concatenate stack hstack vstack matmul mm bmm baddbmm addmm einsum where "
        "exp log log1p expm1 sigmoid tanh softmax log_softmax relu abs sqrt rsqrt square pow "
        "clamp clip flatten reshape transpose permute cumsum cumprod gather index_select "
        "masked_fill outer cdist norm tril triu diag roll flip squeeze unsqueeze cross dot lerp "
        "erf atan2 maximum minimum clone cos sin sum mean prod logsumexp std var exp2 neg "
        "sign floor ceil round trunc bucketize searchsorted nan_to_num addcmul addcdiv "
        "narrow chunk_cat repeat_interleave tile take take_along_dim scatter scatter_add "
        "index_add broadcast_to expand_copy atleast_1d atleast_2d"
    ).split()
)

# `torch.<name>` functions that are also methods of a tensor but return something else: a
# tuple of tensors, a bool, a number, or (for the names of properties) not a function at all.
_NOT_TENSOR_RESULTS = frozenset(
    "max min sort topk split chunk unbind unique unique_consecutive median nanmedian mode kthvalue "
    "nonzero svd qr eig symeig slogdet lstsq var_mean std_mean aminmax frexp histogram tensor_split "
    "hsplit vsplit dsplit cummax cummin lu geqrf triangular_solve solve lobpcg equal allclose numel "
    "dim device dtype layout shape data grad names real imag ndim nbytes itemsize storage "
    "untyped_storage type tolist item size stride data_ptr element_size get_device ".split()
)


def returns_a_tensor(qualified: str) -> bool:
    """``torch.bincount``, ``torch.argmax``...: a top-level function of torch that is also a
    method of a tensor returns a tensor, as the method does, except those that return a tuple,
    a bool or a number."""
    namespace, _, name = qualified.rpartition(".")
    return namespace == "torch" and name in TENSOR_NAMESPACE and name[:1].islower() and not name.startswith("is_") and name not in _NOT_TENSOR_RESULTS


LOSS_FUNCTIONS = frozenset(
    f"torch.nn.functional.{name}"
    for name in (
        "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss kl_div "
        "binary_cross_entropy binary_cross_entropy_with_logits poisson_nll_loss "
        "gaussian_nll_loss margin_ranking_loss hinge_embedding_loss multilabel_margin_loss "
        "soft_margin_loss multilabel_soft_margin_loss cosine_embedding_loss "
        "multi_margin_loss triplet_margin_loss triplet_margin_with_distance_loss ctc_loss"
    ).split()
)

GRAD_SCALERS = frozenset(
    {
        "torch.amp.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.cpu.amp.GradScaler",
        "torch.GradScaler",
        # the classes are also reachable through the modules that define them
        "torch.amp.grad_scaler.GradScaler",
        "torch.cuda.amp.grad_scaler.GradScaler",
    }
)
DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}) | idioms.LIBRARY_DATALOADERS
SAMPLERS_PREFIXES = ("torch.utils.data.",)
DEVICE_CONSTRUCTORS = frozenset({"torch.device"})
# Device types a string may name (`"cuda"`, `"cuda:1"`, `"cpu"`): such a string is a device.
DEVICE_TYPES = ("cuda", "cpu", "mps", "xpu", "meta", "hpu", "npu", "xla")


def names_device(text: object) -> bool:
    return isinstance(text, str) and text.split(":", 1)[0] in DEVICE_TYPES
WRAPPING_MODULE_FUNCTIONS = frozenset({"torch.compile", "torch.jit.script", "torch.jit.trace"})
# Wrappers whose forward runs the forward of the module they are given (first argument).
FORWARDING_WRAPPERS = WRAPPING_MODULE_FUNCTIONS | FSDP1_WRAPPERS | frozenset(
    {"torch.nn.parallel.DistributedDataParallel", "torch.nn.DistributedDataParallel",
     "torch.nn.parallel.distributed.DistributedDataParallel", "torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
     "torch.nn.parallel.data_parallel.DataParallel", "apex.parallel.DistributedDataParallel"}
)
# Grad-mode managers (also decorators). `inference_mode(mode)` disables gradients only when
# `mode` is true: `inference_mode(False)`, like `enable_grad()`, turns them back on.
INFERENCE_MODE = frozenset({"torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"})
NO_GRAD_CONTEXTS = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"}) | INFERENCE_MODE
ENABLE_GRAD_CONTEXTS = frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})
SET_GRAD_ENABLED = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"})
GRAD_OFF_NAMES = frozenset({"no_grad", "inference_mode", "set_grad_enabled"})  # as a decorator factory spells them

DTYPES = frozenset(
    f"torch.{name}"
    for name in (
        "float16 half bfloat16 float32 float float64 double int8 uint8 int16 short int32 int "
        "int64 long bool complex64 complex128 cfloat cdouble float8_e4m3fn float8_e5m2"
    ).split()
)

# Tensor methods whose result carries no autograd graph.
# Libraries whose arrays share tensor spellings (`.T`, `.transpose`) but are no tensors.
ARRAY_LIBRARIES = frozenset({"numpy", "scipy", "pandas", "cupy", "jax", "tensorflow"})

DETACHING_METHODS = frozenset({"detach", "item", "tolist", "numpy"})
# Tensor methods that return plain Python numbers.
NUMBER_METHODS = frozenset({"item", "dim", "numel", "nelement", "ndimension", "element_size", "get_device"})
# Module methods that return the module itself.
MODULE_SELF_METHODS = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "half", "float", "double", "bfloat16", "requires_grad_", "to_empty", "share_memory", "apply", "xpu", "mps"}
)

# Methods of torch's stateful objects (modules, optimizers, schedulers, scalers) whose result is a
# plain mapping or iterator, never one of those objects: `ema_model = model.state_dict()` is a dict.
PLAIN_RESULT_METHODS = frozenset({"state_dict", "parameters", "named_parameters", "buffers", "named_buffers"})

# `torch.nn` modules that hold no state: no parameters, no buffers, and the same computation in
# train and eval mode (Dropout and the norms are left out). Kept in a plain list, they lose nothing.
_STATELESS_MODULES = frozenset(
    (
        "ReLU ReLU6 GELU SiLU Mish Tanh Tanhshrink Sigmoid Hardsigmoid Hardswish Hardtanh LeakyReLU ELU CELU SELU "
        "Softplus Softsign Softshrink Hardshrink LogSigmoid Threshold GLU Softmax LogSoftmax Softmax2d Softmin "
        "Identity Flatten Unflatten Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle "
        "ChannelShuffle Fold Unfold CosineSimilarity PairwiseDistance "
        "MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d LPPool1d LPPool2d AdaptiveAvgPool1d "
        "AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d "
        "ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d ReflectionPad1d ReflectionPad2d "
        "ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d CircularPad1d CircularPad2d CircularPad3d"
    ).split()
)


def is_stateless_module_class(qualified: str) -> bool:
    """``torch.nn.ReLU``, ``torch.nn.modules.pooling.AvgPool1d``: see _STATELESS_MODULES."""
    return qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[-1] in _STATELESS_MODULES


# Factories whose tensor is always one-dimensional.
ONE_DIMENSIONAL_FACTORIES = frozenset({"torch.linspace", "torch.logspace", "torch.arange", "torch.range"})

# torchmetrics' metrics that are never differentiable (`is_differentiable = False`): calling one
# returns the batch's value, computed without a graph. The task-specific classes add a prefix
# (`MulticlassAccuracy`, `BinaryF1Score`).
_METRICS_WITHOUT_GRAPH = frozenset(
    (
        "Accuracy Precision Recall F1Score FBetaScore AUROC AveragePrecision ConfusionMatrix MatthewsCorrCoef "
        "CohenKappa JaccardIndex Specificity StatScores HammingDistance ExactMatch PrecisionRecallCurve ROC "
        "CalibrationError HingeLoss BLEUScore WordErrorRate CharErrorRate MeanAveragePrecision"
    ).split()
)


def is_metric_without_graph(qualified: str | None) -> bool:
    """``torchmetrics.Accuracy``, ``torchmetrics.classification.MulticlassAccuracy``: see _METRICS_WITHOUT_GRAPH."""
    if qualified is None or not qualified.startswith("torchmetrics."):
        return False
    name = qualified.rsplit(".", 1)[-1]
    return any(name.removeprefix(task) in _METRICS_WITHOUT_GRAPH for task in ("", "Binary", "Multiclass", "Multilabel"))


# Methods only an `nn.Module` has: calling one on a value shows the value is a module.
# What these return is whatever was saved: a module, a state dict, a checkpoint of many parts.
TORCH_LOAD = frozenset({"torch.load", "torch.serialization.load"})

MODULE_ONLY_METHODS = frozenset(
    {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children", "register_buffer",
     "register_parameter", "add_module", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook"}
)
# nn.Module's own methods (and the wrappers' `module`, `no_sync`): calling one of these runs
# no forward pass; a method a model class defines itself (`model.compute_loss(batch)`) may.
NN_MODULE_API = frozenset(
    """add_module apply bfloat16 buffers children compile cpu cuda double eval extra_repr float forward
    get_buffer get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia
    named_buffers named_children named_modules named_parameters parameters register_backward_hook
    register_buffer register_forward_hook register_forward_pre_hook register_full_backward_hook
    register_full_backward_pre_hook register_load_state_dict_post_hook register_load_state_dict_pre_hook
    register_module register_parameter register_state_dict_post_hook register_state_dict_pre_hook
    requires_grad_ set_extra_state set_submodule share_memory state_dict to to_empty train type xpu
    zero_grad module no_sync join""".split()
)
# A module's mode switches, which other objects share (a trainer's `train()`): they show a
# module only on a value that is also called.
MODULE_MODE_METHODS = frozenset({"train", "eval"})

# torch.* functions that apply to each element alone: the result has its argument's shape
# (a 0-dim tensor stays 0-dim).
ELEMENTWISE_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in "exp log log1p expm1 log2 log10 sigmoid tanh relu abs sqrt rsqrt square neg sign floor ceil round trunc cos sin erf reciprocal".split()
)
# torch.* functions whose first positional argument must be a tensor (a list, an array or a
# number there raises): a name passed there holds a tensor wherever that call runs.
TENSOR_INPUT_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "matmul mm bmm exp log log1p expm1 sigmoid tanh softmax log_softmax relu abs sqrt rsqrt square "
        "clamp clip flatten reshape transpose permute cumsum cumprod gather index_select masked_fill "
        "cdist norm tril triu diag roll flip squeeze unsqueeze lerp erf maximum minimum clone cos sin "
        "sum mean prod logsumexp std var neg sign floor ceil round trunc nan_to_num narrow "
        "repeat_interleave take take_along_dim scatter scatter_add index_add min max argmin argmax "
        "topk sort argsort nonzero isnan isinf isfinite all any numel unbind split chunk masked_select"
    ).split()
)
# torch.* functions whose first positional argument is a sequence of tensors (`torch.cat([a, b])`).
TENSOR_SEQUENCE_FUNCTIONS = frozenset(f"torch.{name}" for name in "cat concat concatenate stack hstack vstack dstack".split())
# torch.nn classes whose instances take anything, not only a tensor (a recurrent layer takes a
# PackedSequence too): calling one shows nothing.
_PASS_THROUGH_MODULES = frozenset(
    f"torch.nn.{name}" for name in "Sequential ModuleList ModuleDict ParameterList ParameterDict Identity Module RNN LSTM GRU".split()
)


def takes_a_tensor_first(qualified: str | None) -> bool:
    """Whether the torch function ``qualified`` needs a tensor as its first positional argument."""
    return qualified is not None and (qualified in TENSOR_INPUT_FUNCTIONS or qualified.startswith("torch.nn.functional."))


def layer_takes_a_tensor(qualified: str | None) -> bool:
    """Whether an instance of the ``torch.nn`` layer class ``qualified``, called, needs a tensor
    as its first positional argument (its constructor takes sizes)."""
    return qualified is not None and qualified.startswith("torch.nn.") and qualified not in _PASS_THROUGH_MODULES and is_module_class_name(qualified)


# Methods only a tensor has (arrays, lists and modules have none of them): calling one on a
# value shows the value is a tensor.
TENSOR_ONLY_METHODS = frozenset(
    {"unsqueeze", "permute", "masked_fill", "masked_fill_", "contiguous", "numel", "type_as", "expand_as", "view_as",
     "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "is_contiguous", "detach_", "index_select",
     "masked_select", "narrow", "scatter_", "index_fill_", "index_copy_", "data_ptr"}
)

# Well-known DataLoader wrappers: iterating `tqdm(loader)` is iterating the loader.
# torch_xla's device loaders wrap a DataLoader the same way (`MpDeviceLoader(loader, device)`,
# `ParallelLoader(loader, devices).per_device_loader(device)`) and never set a sampler's epoch.
ITERATION_WRAPPERS = frozenset(
    {"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "enumerate", "iter", "zip", "list", "tuple", "reversed",
     "torch_xla.distributed.parallel_loader.MpDeviceLoader", "torch_xla.distributed.parallel_loader.ParallelLoader"}
)
# Methods of a wrapper above whose result is what the code iterates.
PER_DEVICE_LOADER_METHODS = frozenset({"per_device_loader"})

# Capitalised torch.nn names that are not nn.Module subclasses.
_NOT_MODULE_CLASSES = frozenset({"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"})
_NOT_MODULE_PACKAGES = ("torch.nn.functional.", "torch.nn.init.", "torch.nn.utils.", "torch.nn.attention.", "torch.nn.parameter.", "torchmetrics.functional.", "torchmetrics.utilities.")


# Tensor methods that return the same values in another shape, order of dimensions, dtype or
# place (or reshape in place and return their receiver): a softmax output stays
# probabilities through them.
# Tensor methods that compute a new value from the receiver (and their arguments), keeping its
# graph: `loss.div(n).backward()` backpropagates `loss`.
ARITHMETIC_METHODS = frozenset(
    {"div", "mul", "add", "sub", "true_divide", "pow", "mean", "sum", "clamp", "div_", "mul_", "add_", "sub_"}
)
VALUE_KEEPING_METHODS = frozenset(
    {"view", "view_as", "reshape", "reshape_as", "squeeze", "unsqueeze", "flatten", "unflatten", "ravel", "contiguous",
     "clone", "detach", "resize", "resize_as", "resize_", "resize_as_", "squeeze_", "unsqueeze_",
     "permute", "transpose", "transpose_", "t", "t_", "movedim", "moveaxis", "swapaxes", "swapdims",
     "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type"}
)


# In-place fills: they return their receiver, on the device it is on.
# In-place methods that change a tensor's flags, not its values: an alias still reads the same numbers.
FLAG_SETTERS = frozenset({"requires_grad_", "share_memory_", "rename_"})
IN_PLACE_FILLS = frozenset({"fill_", "zero_", "normal_", "uniform_", "random_", "exponential_", "log_normal_", "geometric_", "cauchy_", "bernoulli_"})
RANDOM_FILLS = IN_PLACE_FILLS - {"fill_", "zero_"}
# Methods that return a tensor of their receiver's shape on its device: a 0-dim CPU tensor stays one.
SHAPE_AND_PLACE_KEEPING_METHODS = IN_PLACE_FILLS | {
    "float", "double", "half", "bfloat16", "long", "int", "bool", "clone", "detach", "contiguous", "requires_grad_"
}
# Tensor methods whose result lives where their receiver does: a tensor built on the CPU is
# still there after them.
PLACE_KEEPING_METHODS = (VALUE_KEEPING_METHODS - {"to", "cuda", "cpu", "type"}) | IN_PLACE_FILLS | {
    "expand", "repeat", "t", "transpose", "permute", "long", "int", "bool"
}

# Functions that clip the gradients they are given, in place.
GRADIENT_CLIPS = frozenset(
    f"torch.nn.utils.{module}{name}"
    for module in ("", "clip_grad.")
    for name in ("clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_")
)


def is_module_class_name(qualified: str) -> bool:
    """Whether ``qualified`` names an ``nn.Module`` class (``torch.nn.Linear``, ``torch.nn.Module``,
    a library's subclass such as Lightning's ``LightningModule``)."""
    if qualified in idioms.LIBRARY_MODULE_CLASSES:
        return True
    last = qualified.rsplit(".", 1)[-1]
    return (
        qualified.startswith(("torch.nn.", *idioms.LIBRARY_LAYER_PACKAGES))
        and last[:1].isupper()
        and last not in _NOT_MODULE_CLASSES
        and not qualified.startswith(_NOT_MODULE_PACKAGES)
    )

# Loss modules that take logits, and the functional form each one calls.
FUNCTIONAL_FORM_OF_LOSS = {
    "torch.nn.CrossEntropyLoss": "torch.nn.functional.cross_entropy",
    "torch.nn.NLLLoss": "torch.nn.functional.nll_loss",
    "torch.nn.BCEWithLogitsLoss": "torch.nn.functional.binary_cross_entropy_with_logits",
}
# Calls that wrap a model and call it when called: `DataParallel(model)(x)` runs `model`.
MODULE_CALLING_WRAPPERS = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
     "torch.nn.DistributedDataParallel", *WRAPPING_MODULE_FUNCTIONS}
)
