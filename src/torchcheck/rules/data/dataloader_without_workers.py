from __future__ import annotations

import libcst as cst

from torchcheck.lint.dataloaders import (
    dataloader_arguments,
    integer_value,
    is_dataloader_call,
)
from torchcheck.lint.rule import Invalid, Rule, Valid


class DataLoaderWithoutWorkers(Rule):
    """
    ## What it does
    Checks for `DataLoader(...)` calls without `num_workers` (or with `num_workers=0`), which
    load every batch in the training process itself.

    ## Why is this bad?
    With no worker processes, reading files, decoding images and running the transforms and
    `collate_fn` happen synchronously, between two training steps: the GPU waits idle while
    the next batch is prepared. With `num_workers > 0` worker processes prepare the next
    batches (`prefetch_factor` of them per worker) while the current step runs. Start
    with a few workers per GPU and measure; combine with `pin_memory=True` and
    `persistent_workers=True` for faster host-to-device copies and epoch starts.

    This rule is opt-in: `num_workers=0` is the right choice for small in-memory datasets
    (a `TensorDataset`), where worker start-up and inter-process copies cost more than they
    save, and it keeps debugging (breakpoints, stack traces) and tests simple.

    ## Example
    ```python
    from torch.utils.data import DataLoader

    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    ```

    Use instead:
    ```python
    from torch.utils.data import DataLoader

    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)
    ```

    ## Fix safety
    There is no automatic fix: the right number of workers depends on the machine, the
    dataset and the transforms, and worker processes require a picklable dataset (and an
    `if __name__ == "__main__":` guard on platforms that spawn them).

    ## References
    - [Single- and multi-process data loading](https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading)
    - [Performance tuning guide: asynchronous data loading](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#enable-async-data-loading-and-augmentation)
    """

    code = "TCK803"
    name = "dataloader-without-workers"
    message = (
        "`DataLoader` without `num_workers` loads batches synchronously in the training process; "
        "set `num_workers > 0`"
    )
    default_enabled = False
    required_text = ("DataLoader",)
    torchfix_codes = ("TOR401",)

    VALID = (
        Valid(
            """
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)
positional = DataLoader(dataset, 64, True, None, None, args.workers)
"""
        ),
        Valid(
            """
import torch

def build_loader(dataset, **loader_kwargs):
    # **loader_kwargs could supply num_workers
    return torch.utils.data.DataLoader(dataset, batch_size=32, **loader_kwargs)

def build_from(dataset, *loader_args):
    return torch.utils.data.DataLoader(dataset, *loader_args)
"""
        ),
        Valid(
            """
from my_project.data import DataLoader

loader = DataLoader(dataset, batch_size=64)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=64, shuffle=True)  # TCK803
"""
        ),
        Invalid(
            """
import torch.utils.data as tud

loader = tud.DataLoader(  # TCK803
    dataset,
    batch_size=64,
    num_workers=0,
)
sequential = tud.dataloader.DataLoader(dataset, 64, False, None, None, 0)  # TCK803
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not is_dataloader_call(self.context, node):
            return
        arguments = dataloader_arguments(node)
        workers = arguments.get("num_workers")
        if integer_value(workers) == 0 if workers is not None else arguments.is_absent("num_workers"):
            self.report(node)
