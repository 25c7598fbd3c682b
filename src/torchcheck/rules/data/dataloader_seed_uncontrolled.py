from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.dataloaders import (
    call_arguments,
    dataloader_arguments,
    integer_value,
    is_constant,
    is_dataloader_call,
)
from torchcheck.lint.rule import Invalid, Rule, Valid

# Calls that seed PyTorch's global generator: torch's own, and the seed helpers of the
# libraries most training scripts use (each calls `torch.manual_seed`).
_TORCH_SEEDS = frozenset(
    {
        "torch.manual_seed",
        "torch.random.manual_seed",
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
        "torch.cuda.random.manual_seed",
        "torch.cuda.random.manual_seed_all",
        "transformers.set_seed",
        "transformers.trainer_utils.set_seed",
        "transformers.enable_full_determinism",
        "transformers.trainer_utils.enable_full_determinism",
        "accelerate.utils.set_seed",
        "timm.utils.random_seed",
        "timm.utils.random.random_seed",
    }
)
# Lightning's seed_everything(..., workers=True) makes its Trainer inject a seeding
# worker_init_fn into the loaders it is given: which loaders those are is not visible here.
_LIGHTNING_SEEDS = frozenset(
    {
        "lightning.seed_everything",
        "lightning.pytorch.seed_everything",
        "lightning.fabric.seed_everything",
        "pytorch_lightning.seed_everything",
        "lightning_fabric.seed_everything",
        "lightning.fabric.utilities.seed.seed_everything",
        "lightning_fabric.utilities.seed.seed_everything",
        "pytorch_lightning.utilities.seed.seed_everything",
    }
)


class DataLoaderSeedUncontrolled(Rule):
    """
    ## What it does
    Checks for shuffling (`shuffle=True`) or multi-process (`num_workers` other than 0)
    `DataLoader(...)` calls that pass neither `generator=` nor `worker_init_fn=`, in a module
    that seeds PyTorch (`torch.manual_seed(...)`, `transformers.set_seed(...)`, ...).

    ## Why is this bad?
    The module seeds PyTorch, so it means runs to be repeatable. Without a `generator`,
    the loader draws its shuffle order and its workers' base seed from the *global* random
    generator each time an epoch starts, so the data order depends on every random
    operation that ran before: change the model's initialisation, add a dropout layer or a
    random augmentation in the main process, or resume from a checkpoint, and every later
    epoch sees different batches. A dedicated `torch.Generator` seeded once keeps the data
    order independent of the rest of the program. PyTorch's reproducibility notes also
    recommend a `worker_init_fn` that seeds `numpy` and `random` in each worker from
    `torch.initial_seed()` (PyTorch before 1.9 did not seed NumPy in workers at all, so
    every worker produced the same "random" augmentations).

    This rule is opt-in: many projects seed only to make model initialisation repeatable
    and accept a data order that changes with the code.

    ## Example
    ```python
    import torch
    from torch.utils.data import DataLoader

    torch.manual_seed(0)
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
    ```

    Use instead:
    ```python
    import random

    import numpy
    import torch
    from torch.utils.data import DataLoader

    def seed_worker(worker_id):
        worker_seed = torch.initial_seed() % 2**32
        numpy.random.seed(worker_seed)
        random.seed(worker_seed)

    torch.manual_seed(0)
    generator = torch.Generator()
    generator.manual_seed(0)
    loader = DataLoader(
        dataset, batch_size=64, shuffle=True, num_workers=4,
        worker_init_fn=seed_worker, generator=generator,
    )
    ```

    ## Fix safety
    There is no automatic fix: the seed, and whether workers need their own seeding
    function, are the project's choice.

    ## References
    - [Reproducibility: DataLoader](https://pytorch.org/docs/stable/notes/randomness.html#dataloader)
    - [Randomness in multi-process data loading](https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading)
    """

    code = "TCK802"
    name = "dataloader-seed-uncontrolled"
    message = (
        "Seeded module, but this `DataLoader` has no `generator=` or `worker_init_fn=`; its "
        "shuffle order and worker seeds depend on every other use of the global RNG"
    )
    default_enabled = False
    required_text = ("DataLoader",)

    VALID = (
        Valid(
            """
import torch
from torch.utils.data import DataLoader

torch.manual_seed(0)
g = torch.Generator()
g.manual_seed(0)
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, worker_init_fn=seed_worker, generator=g)
ordered = DataLoader(dataset, batch_size=64)
explicit = DataLoader(dataset, batch_size=64, shuffle=False, num_workers=0)
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
"""
        ),
        Valid(
            """
import torch
from torch.utils.data import DataLoader

def build(dataset, **loader_kwargs):
    torch.manual_seed(0)
    return DataLoader(dataset, shuffle=True, **loader_kwargs)
"""
        ),
        Valid(
            """
import lightning as L
from torch.utils.data import DataLoader

L.seed_everything(42, workers=True)
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch.utils.data import DataLoader

torch.manual_seed(0)
loader = DataLoader(dataset, batch_size=64, shuffle=True)  # TCK802
"""
        ),
        Invalid(
            """
import torch
from transformers import set_seed

def main(args):
    loader = torch.utils.data.DataLoader(dataset, 64, False, num_workers=args.workers)  # TCK802
    set_seed(args.seed)
"""
        ),
        Invalid(
            """
import torch
from lightning.pytorch import seed_everything

seed_everything(7)
loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)  # TCK802
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._loaders: list[cst.Call] = []
        self._seeds = False
        self._workers_seeded_elsewhere = False

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node)
        if qualified in _TORCH_SEEDS:
            self._seeds = True
        elif qualified in _LIGHTNING_SEEDS:
            self._seeds = True
            arguments = call_arguments(node, ("seed", "workers", "verbose"))
            workers = arguments.get("workers")
            if (workers is not None and not is_constant(workers, "False")) or (
                workers is None and arguments.may_be_given("workers")
            ):
                self._workers_seeded_elsewhere = True
        elif is_dataloader_call(self.context, node) and _is_uncontrolled(node):
            self._loaders.append(node)

    def leave_Module(self, node: cst.Module) -> None:
        if not self._seeds or self._workers_seeded_elsewhere:
            return
        for loader in self._loaders:
            self.report(loader)


def _is_uncontrolled(call: cst.Call) -> bool:
    """Shuffles or runs workers, and certainly passes neither a generator nor a worker_init_fn."""
    arguments = dataloader_arguments(call)
    for name in ("generator", "worker_init_fn"):
        value = arguments.get(name)
        if (value is not None and not is_constant(value, "None")) or (value is None and arguments.may_be_given(name)):
            return False
    workers = arguments.get("num_workers")
    multi_process = workers is not None and integer_value(workers) != 0
    return is_constant(arguments.get("shuffle"), "True") or multi_process
