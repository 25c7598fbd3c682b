"""Framework idioms as data: which calls of training frameworks are a backward, a step, an
unwrap, a distributed set-up or a one-rank save, and which context managers autocast.

Rules never name a framework. They ask the semantic model ("what does this call do?",
"is this loss backpropagated?"), and the model reads this table. A framework object is
recognised by the call that made it (``accelerator = Accelerator()``), never by its name:
``accelerator.backward(loss)`` is a backward only when ``accelerator`` is known to be an
``accelerate.Accelerator``.

Qualified names are the names the code imports: ``from accelerate import Accelerator``
makes ``Accelerator()`` an ``accelerate.Accelerator``. A class reachable under several
import paths is listed under each.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class Effect(str, enum.Enum):
    """What a call does to the training state. The values are the names stored in the
    project index, so a summary written by one run is read by the next."""

    EVAL = "eval"
    TRAIN = "train"
    ZERO_GRAD = "zero_grad"
    STEP = "step"
    BACKWARD = "backward"
    SET_EPOCH = "set_epoch"
    UNSCALE = "unscale_"
    UPDATE = "update"
    FORWARD = "forward"  # calls the value: runs a module
    FULLY_SHARD = "fully_shard"  # FSDP2 replaces the module's parameters with sharded ones
    FSDP_WRAP = "fsdp_wrap"  # FSDP1 flattens the module's parameters into new ones
    # a backward() on a module that is surely in eval mode when it runs (see summaries)
    BACKWARD_IN_EVAL = "backward_in_eval"
    # a backward() on a module that the function surely put in train mode before it runs
    BACKWARD_IN_TRAIN = "backward_in_train"
    CLIP_GRAD = "clip_grad"  # clips the gradients it finds (`torch.nn.utils.clip_grad_norm_`)
    # a step() on a path of the function that never clears gradients, where another path does
    # (the plain branch beside a mixed-precision one); its site is that step (see summaries)
    STEP_UNCLEARED = "step_uncleared"


@dataclass(frozen=True)
class Framework:
    """One framework object: the classes (or factories) that make it."""

    makers: frozenset[str]
    # methods whose first argument is the loss they backpropagate
    backward_methods: frozenset[str] = frozenset()
    # methods that return their arguments wrapped, in order (same kinds): `prepare`, `setup`
    wrapping_methods: frozenset[str] = frozenset()
    # methods that return the model under a wrapper: `unwrap_model`
    unwrapping_methods: frozenset[str] = frozenset()
    # methods that save only on the main process
    one_rank_save_methods: frozenset[str] = frozenset()
    # context-manager methods that open an autocast region
    autocast_methods: frozenset[str] = frozenset()
    # context-manager methods inside which the framework skips `zero_grad()`/`step()` until
    # the last micro-batch of an accumulation window
    accumulation_methods: frozenset[str] = frozenset()
    # methods that unscale the gradients through the framework's GradScaler under fp16 mixed
    # precision, once per optimizer between two scaler updates
    unscaling_methods: frozenset[str] = frozenset()
    # whether making it starts (or joins) a process group when launched on several processes
    distributed: bool = True
    # the argument of its maker that, set to the literal 1, keeps it to one process
    # (`Fabric(devices=1)`)
    process_count_keyword: str | None = None


ACCELERATE = Framework(
    makers=frozenset({"accelerate.Accelerator", "accelerate.accelerator.Accelerator"}),
    backward_methods=frozenset({"backward"}),
    wrapping_methods=frozenset({"prepare", "prepare_model", "prepare_optimizer", "prepare_data_loader", "prepare_scheduler"}),
    unwrapping_methods=frozenset({"unwrap_model"}),
    one_rank_save_methods=frozenset({"save", "save_model", "save_state"}),
    autocast_methods=frozenset({"autocast"}),
    accumulation_methods=frozenset({"accumulate", "no_sync"}),
    unscaling_methods=frozenset({"clip_grad_norm_", "clip_grad_value_", "unscale_gradients"}),
)
FABRIC = Framework(
    makers=frozenset({"lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric", "lightning.fabric.fabric.Fabric"}),
    backward_methods=frozenset({"backward"}),
    wrapping_methods=frozenset({"setup", "setup_module", "setup_dataloaders"}),
    one_rank_save_methods=frozenset({"save"}),
    autocast_methods=frozenset({"autocast"}),
    accumulation_methods=frozenset({"no_backward_sync"}),
    process_count_keyword="devices",
)
DEEPSPEED_ENGINE = Framework(
    makers=frozenset({"deepspeed.DeepSpeedEngine", "deepspeed.runtime.engine.DeepSpeedEngine"}),
    backward_methods=frozenset({"backward"}),
)
FRAMEWORKS = (ACCELERATE, FABRIC, DEEPSPEED_ENGINE)
# Text a file that makes one of them holds (the makers' last names, `deepspeed.initialize`).
FRAMEWORK_TEXT = ("Accelerator", "Fabric", "DeepSpeedEngine", "deepspeed")
# A file that may hand its loaders to a framework's loop, which sets the samplers' epochs
# itself (accelerate's prepared loaders, Lightning, the HF Trainer): it imports the framework
# or makes its object. A name that only contains the word (`self.lightning_module`) is none.
EPOCH_SETTING_PATTERN = re.compile(
    r"^\s*(?:from|import)\s+(?:lightning|pytorch_lightning|lightning_fabric|transformers|accelerate)\b|\b(?:Accelerator|Fabric)\(",
    re.MULTILINE,
)

# Factories returning a tuple whose first item is a framework object:
# `engine, optimizer, _, _ = deepspeed.initialize(...)`.
MAKERS_OF_FIRST_ITEM = {"deepspeed.initialize": "deepspeed.DeepSpeedEngine"}

# Base classes whose `self` backpropagates with `self.manual_backward(loss)` (Lightning's
# manual optimisation), spelled as the code imports them.
LIGHTNING_MODULES = frozenset(
    {
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.lightning.LightningModule",
    }
)
SELF_BACKWARD_METHODS = frozenset({"manual_backward"})
LIGHTNING_CALLBACKS = frozenset(
    {"lightning.pytorch.Callback", "lightning.pytorch.callbacks.Callback", "pytorch_lightning.Callback", "pytorch_lightning.callbacks.Callback"}
)
# Hooks of those classes (modules and callbacks) that the framework calls when a run, an epoch
# or a batch starts: before the optimizer step of the pass they start.
HOOKS_BEFORE_THE_STEP = frozenset({"on_train_start", "on_train_epoch_start", "on_epoch_start", "on_train_batch_start"})
# Ignite's engine events that fire when a run, an epoch or an iteration starts: a handler
# attached to one (`@trainer.on(Events.EPOCH_STARTED)`) runs before that pass's step function.
EVENTS_BEFORE_THE_STEP = frozenset(
    f"{events}.{name}"
    for events in ("ignite.engine.Events", "ignite.engine.events.Events")
    for name in ("STARTED", "EPOCH_STARTED", "ITERATION_STARTED")
)
EVENT_REGISTRATIONS = frozenset({"on", "add_event_handler"})  # `engine.on(event)`, `engine.add_event_handler(event, handler)`
# Methods of those classes that the framework's training loop calls once per batch: the body
# of one is one iteration of a loop the file does not show.
PER_BATCH_METHODS = frozenset({"training_step"})
# Those whose returned loss (or dict with a "loss" entry) the framework backpropagates, unless
# the module turns automatic optimization off.
BACKPROPAGATED_RETURNS = frozenset({"training_step"})
MANUAL_OPTIMIZATION = re.compile(r"automatic_optimization\s*=\s*False|def automatic_optimization")

# Library loaders that subclass `torch.utils.data.DataLoader` and take its `batch_size`,
# `shuffle` and `sampler`: graph batching (PyG, DGL) and medical imaging (MONAI).
LIBRARY_DATALOADERS = frozenset(
    {
        "torch_geometric.loader.DataLoader",
        "torch_geometric.loader.dataloader.DataLoader",
        "torch_geometric.data.DataLoader",
        "dgl.dataloading.GraphDataLoader",
        "monai.data.DataLoader",
        "monai.data.dataloader.DataLoader",
    }
)

# Library packages whose public classes are all layers, i.e. `torch.nn.Module`s, like those of
# `torch.nn` (`torch_geometric.nn.GCNConv`, `dgl.nn.pytorch.GraphConv`, `torchvision.ops.MLP`).
LIBRARY_LAYER_PACKAGES = ("torch_geometric.nn.", "dgl.nn.", "torchvision.ops.", "torchaudio.transforms.", "torchmetrics.")  # torchmetrics' metrics are modules with state

# Library base classes that derive from `torch.nn.Module`: a class deriving from one is a
# module like any other (it registers submodules, has `forward`, moves with `.to()`).
LIBRARY_MODULE_CLASSES = LIGHTNING_MODULES | frozenset(
    {
        "transformers.PreTrainedModel",
        "transformers.modeling_utils.PreTrainedModel",
        "diffusers.ModelMixin",
        "diffusers.models.modeling_utils.ModelMixin",
        "torch_geometric.nn.MessagePassing",
        "torch_geometric.nn.conv.MessagePassing",
    }
)

# Free functions whose first argument is the loss they backpropagate.
BACKWARD_FUNCTIONS = frozenset({"torch.autograd.backward"})
# Context managers whose `as` targets include a differentiable optimizer: its `step(loss)`
# differentiates the loss it is handed (higher's inner loop of a meta-learner).
DIFFERENTIABLE_OPTIMIZER_CONTEXTS = frozenset({"higher.innerloop_ctx"})

# Context managers whose `as` target is the loss scaled for a mixed-precision backward:
# Frameworks' DistributedDataParallel wrappers: like torch's, they keep the model in
# `.module`, prefix its state-dict keys with `module.`, and all-reduce through their forward.
DDP_WRAPPERS = frozenset({"apex.parallel.DistributedDataParallel"})

# apex's `with amp.scale_loss(loss, optimizer) as scaled_loss: scaled_loss.backward()`.
SCALED_LOSS_MANAGERS = frozenset({"apex.amp.scale_loss"})

# Calls that start a process group, or wrap a model for one, outside of torch itself.
PROCESS_GROUP_STARTERS = frozenset(
    {
        "deepspeed.initialize",
        "deepspeed.init_distributed",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard",
        *(maker for framework in FRAMEWORKS if framework.distributed for maker in framework.makers),
    }
)

# Text each of them leaves in a file: a file with none of it starts no process group this way.
PROCESS_GROUP_TEXT = ("Accelerator", "Fabric", "deepspeed", "fully_shard", "FullyShardedDataParallel")


def framework_made_by(maker: str | None) -> Framework | None:
    """The framework whose object ``maker`` (a qualified class or factory name) makes."""
    if maker is None:
        return None
    return next((framework for framework in FRAMEWORKS if maker in framework.makers), None)

# Words in the name of a call that runs the function it is handed on one rank only (the
# coordinator, the main process, rank zero): `checkpointer.run_coordinator_step(write_meta)`,
# `accelerator.on_main_process(save)`, `rank_zero_only(save)()`. A call that runs it on every
# rank in turn (`main_process_first()`) names none of them.
ONE_RANK_RUNNER_WORDS = ("coordinator", "rank_zero", "rank0", "on_main_process", "main_process_only", "master_only")

# Deep-learning frameworks other than PyTorch. A file that imports one of them and not torch
# is that framework's code (a port shipped beside the PyTorch one, as YOLOX ships MegEngine
# demos): their `load_state_dict`, `backward` and `Module` follow other rules.
OTHER_FRAMEWORKS = ("megengine", "paddle", "jittor", "mindspore", "tensorflow", "keras", "jax", "flax", "mxnet")
