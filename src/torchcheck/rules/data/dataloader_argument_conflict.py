from __future__ import annotations

from dataclasses import replace

import libcst as cst

from torchcheck.lint.accumulators import instance_class
from torchcheck.lint.containers import dict_keywords
from torchcheck.lint.dataloaders import (
    Assignments,
    CallArguments,
    calls_on_some_path,
    dataloader_arguments,
    integer_value,
    is_constant,
    is_dataloader_call,
    never_none,
    scope_assignments,
    set_on_some_path,
)
from torchcheck.lint.nodes import source_text
from torchcheck.lint.project import DEFINITION, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid

# Where the names a call reads are looked up (comprehensions share their function's names here).
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)


class DataLoaderArgumentConflict(Rule):
    """
    ## What it does
    Checks for `DataLoader(...)` calls whose arguments `DataLoader.__init__` rejects with a
    `ValueError`: `shuffle=True` with a `sampler` (one the code sets on some branch is enough);
    a `batch_sampler` with `batch_size`
    (other than 1), `shuffle=True`, a `sampler` or `drop_last=True`; `batch_size=None` with
    `drop_last=True`; `persistent_workers=True` or a `prefetch_factor` without worker
    processes (`num_workers` missing or 0), also a `prefetch_factor` chosen by the worker
    count that is still set on the path without workers (`f if num_workers > 0 else 2`,
    passed as such or through a name bound to it). Arguments passed through `**kwargs` count
    where the code builds that dict: its literal, `kwargs.update(...)` (also on one branch:
    `train_kwargs.update(cuda_kwargs)` with `"shuffle": True`) and `kwargs["key"] = value`.

    A sampler counts as set when it is built by calling a class: a capitalised name, a class
    of the file, or a name another file of the project defines as a class, whatever its case
    (`dataset.randomSequentialSampler(ds)`). The result of a plain function may be `None`,
    so it does not count.

    ## Why is this bad?
    The call raises as soon as it runs: `sampler option is mutually exclusive with
    shuffle`, `batch_sampler option is mutually exclusive with batch_size, shuffle,
    sampler, and drop_last`, `persistent_workers option needs num_workers > 0`,
    `prefetch_factor option could only be specified in multiprocessing`. The loader is
    usually built after the model, the checkpoint and the dataset, so the error costs a
    whole start-up, and in a distributed job only the ranks that take the failing branch
    (e.g. the one that builds a `DistributedSampler`) crash. A sampler decides the order
    itself: shuffle inside it (`DistributedSampler(ds, shuffle=True)`,
    `RandomSampler(ds)`). A batch sampler decides the batches: give batch size and
    `drop_last` to it instead. (Since PyTorch 2.0 any `prefetch_factor` needs workers;
    before, only values other than 2 raised.)

    ## Example
    ```python
    from torch.utils.data import DataLoader, DistributedSampler

    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, shuffle=True, sampler=sampler)
    ```

    Use instead:
    ```python
    from torch.utils.data import DataLoader, DistributedSampler

    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    ```

    ## Fix safety
    There is no automatic fix: which of the two arguments expresses the intent (shuffle
    or the custom sampler, the loader's batch size or the batch sampler's) is the
    author's choice.

    ## References
    - [`torch.utils.data.DataLoader`](https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)
    - [Data loading order and `Sampler`](https://pytorch.org/docs/stable/data.html#data-loading-order-and-sampler)
    - [`DataLoader.__init__` argument checks](https://github.com/pytorch/pytorch/blob/main/torch/utils/data/dataloader.py)
    """

    code = "TCK801"
    name = "dataloader-argument-conflict"
    message = "`DataLoader` raises `ValueError` at construction: {conflicts}"
    required_text = ("DataLoader",)

    VALID = (
        Valid(
            """
import torch

def build_loader(dataset, phase, num_workers, sampler):
    if phase == "train":
        loader_args = dict(dataset=dataset, batch_size=8, num_workers=num_workers, sampler=sampler, persistent_workers=True)
    else:
        loader_args = dict(dataset=dataset, batch_size=1, shuffle=False, num_workers=0)
    loader_args["pin_memory"] = True
    return torch.utils.data.DataLoader(**loader_args)  # each path's own dict is consistent
"""
        ),
        Valid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

sampler = DistributedSampler(dataset) if distributed else None
loader = DataLoader(dataset, batch_size=64, shuffle=(sampler is None), sampler=sampler)
"""
        ),
        Valid(
            """
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

batch_sampler = BatchSampler(RandomSampler(dataset), batch_size=32, drop_last=True)
loader = DataLoader(dataset, batch_sampler=batch_sampler, num_workers=4, collate_fn=collate)
single = DataLoader(dataset, batch_size=1, shuffle=False, batch_sampler=batch_sampler)
"""
        ),
        Valid(
            """
import torch

def create_loader(dataset, batch_size, num_workers, persistent_workers=True, **kwargs):
    return torch.utils.data.DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        persistent_workers=persistent_workers and num_workers > 0,
        prefetch_factor=2 if num_workers > 0 else None,
        **kwargs,
    )
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader

def make(dataset, sampler, workers, **loader_kwargs):
    # **loader_kwargs could supply num_workers
    return DataLoader(dataset, sampler=sampler, persistent_workers=True, **loader_kwargs)

fast = DataLoader(dataset, batch_size=8, num_workers=4, persistent_workers=True, prefetch_factor=4)
ordered = DataLoader(dataset, 8, False, sampler)
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader

def make(dataset, *args):
    # *args could supply num_workers by position
    return DataLoader(dataset, *args, prefetch_factor=4)

unbatched = DataLoader(dataset, batch_size=None, drop_last=False)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
from torch.utils.data import DataLoader, DistributedSampler

def main(args, train_set):
    train_kwargs = {"batch_size": args.batch_size}
    if torch.cuda.is_available():
        cuda_kwargs = {"num_workers": 1, "pin_memory": True, "shuffle": True}
        train_kwargs.update(cuda_kwargs)
    sampler = DistributedSampler(train_set)
    return DataLoader(train_set, **train_kwargs, sampler=sampler)  # TCK801
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader

def build_dataloader(dataset, batch_size, num_workers):
    prefetch_factor = max(1, 2 * batch_size // num_workers) if num_workers > 0 else 2
    return DataLoader(dataset=dataset, batch_size=batch_size, num_workers=num_workers, prefetch_factor=prefetch_factor)  # TCK801
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader, Sampler

class randomSequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

def make_loader(dataset, random_sample):
    sampler = None if random_sample else randomSequentialSampler(dataset)
    return DataLoader(dataset, batch_size=8, shuffle=True, sampler=sampler)  # TCK801
"""
        ),
        Invalid(
            """
import torch

def build(dataset, distributed):
    train_sampler = None
    if distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(dataset)
    return torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True, sampler=train_sampler)  # TCK801
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader, DistributedSampler

sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, batch_size=64, shuffle=True, sampler=sampler)  # TCK801
"""
        ),
        Invalid(
            """
import torch.utils.data as data

loader = data.DataLoader(dataset, 32, True, data.RandomSampler(dataset))  # TCK801
batched = data.DataLoader(  # TCK801
    dataset,
    batch_size=32,
    batch_sampler=data.BatchSampler(data.SequentialSampler(dataset), 32, False),
    drop_last=True,
)
"""
        ),
        Invalid(
            """
import torch

def build(dataset, args):
    sampler = GroupedBatchSampler(dataset, args.batch_size)
    return torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, batch_sampler=sampler)  # TCK801

def build_train(dataset, args):
    if args.distributed:
        sampler = torch.utils.data.DistributedSampler(dataset)
    else:
        sampler = torch.utils.data.RandomSampler(dataset) if args.random else torch.utils.data.SequentialSampler(dataset)
    return torch.utils.data.DataLoader(dataset, args.batch_size, shuffle=True, sampler=sampler)  # TCK801
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader

val_loader = DataLoader(dataset, batch_size=64, persistent_workers=True)  # TCK801
test_loader = DataLoader(dataset, batch_size=64, num_workers=0, prefetch_factor=4)  # TCK801
"""
        ),
        Invalid(
            """
from torch.utils.data import DataLoader

def eval_loader(dataset, cfg, num_workers):
    return DataLoader(  # TCK801
        dataset,
        batch_size=cfg.batch_size,
        num_workers=num_workers,
        prefetch_factor=cfg.prefetch_factor if num_workers > 0 else 2,
    )
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not is_dataloader_call(self.context, node):
            return
        scope = self.context.binder.enclosing(node, *_SCOPES)
        assert scope is not None  # the module encloses every call
        arguments, assignments = self._with_dict_keywords(node, dataloader_arguments(node)), scope_assignments(scope)
        conflicts, conditions = _conflicts(arguments, assignments), ()
        sampler = arguments.get("sampler")
        if is_constant(arguments.get("shuffle"), "True") and not set_on_some_path(sampler, assignments):
            made = self._made_by_a_class(calls_on_some_path(sampler, assignments))
            if made is not None:  # `sampler = dataset.randomSequentialSampler(ds)` on one branch
                conflicts.insert(0, _SHUFFLE_WITH_SAMPLER + _ON_SOME_PATHS)
                conditions = made
        if conflicts:
            self.report(node, self.message.format(conflicts="; ".join(conflicts)), conditions=conditions)

    def _with_dict_keywords(self, call: cst.Call, arguments: CallArguments) -> CallArguments:
        """What ``**kwargs`` passes, where the code builds the dict (``kwargs.update(cuda_kwargs)``
        on one branch is enough); arguments written in the call win."""
        passed = [argument.value for argument in call.args if argument.star == "**" and type(argument.value) is cst.Name]
        known = {key: value for name in passed for key, value in dict_keywords(self.context.binder, name).items()}  # type: ignore[arg-type]
        return replace(arguments, values={**known, **arguments.values}) if known else arguments

    def _made_by_a_class(self, calls: list[cst.Call]) -> tuple[Condition, ...] | None:
        """Whether one of ``calls`` builds an instance: of a class of this file (no condition),
        or of a name another project file defines, if that definition is a class."""
        for call in calls:
            if instance_class(self.context.binder, call) is not None:
                return ()
            symbol = self.context.project.symbol_of(call.func) if self.context.project is not None else None
            if symbol is not None and not symbol.is_local:
                return (Condition(symbol, DEFINITION, "class"),)
        return None


_SHUFFLE_WITH_SAMPLER = "`sampler=` is mutually exclusive with `shuffle=True`"
_ON_SOME_PATHS = " (on the paths that set the sampler)"


def _conflicts(arguments: CallArguments, assignments: Assignments) -> list[str]:
    """Each argument combination that ``DataLoader.__init__`` rejects, described."""
    found: list[str] = []
    shuffle = is_constant(arguments.get("shuffle"), "True")
    drop_last = is_constant(arguments.get("drop_last"), "True")
    has_sampler = never_none(arguments.get("sampler"), assignments)
    if shuffle and set_on_some_path(arguments.get("sampler"), assignments):
        found.append(_SHUFFLE_WITH_SAMPLER + ("" if has_sampler else _ON_SOME_PATHS))
    if never_none(arguments.get("batch_sampler"), assignments):
        excluded = [
            label
            for label, present in (
                ("`batch_size=`", _may_not_be_one(arguments.get("batch_size"), assignments)),
                ("`shuffle=True`", shuffle),
                ("`sampler=`", has_sampler),
                ("`drop_last=True`", drop_last),
            )
            if present
        ]
        if excluded:
            found.append(f"`batch_sampler=` is mutually exclusive with {', '.join(excluded)}")
    elif is_constant(arguments.get("batch_size"), "None") and drop_last:
        found.append("`batch_size=None` is mutually exclusive with `drop_last=True`")
    if _without_workers(arguments):
        if is_constant(arguments.get("persistent_workers"), "True"):
            found.append("`persistent_workers=True` needs `num_workers > 0`")
        if never_none(arguments.get("prefetch_factor"), assignments):
            found.append("`prefetch_factor=` needs `num_workers > 0`")
    elif never_none(_without_workers_branch(_value_of(arguments.get("prefetch_factor"), assignments), arguments.get("num_workers")), assignments):
        found.append("`prefetch_factor=` needs `num_workers > 0`, and is set on the path where `num_workers` is 0")
    return found


def _value_of(expression: cst.BaseExpression | None, assignments: Assignments) -> cst.BaseExpression | None:
    """A local name's value where one assignment alone binds it (``prefetch = f if n > 0 else 2``)."""
    values = assignments.of(expression.value) if type(expression) is cst.Name else None  # type: ignore[attr-defined]
    return values[0] if values is not None and len(values) == 1 else expression


def _without_workers_branch(value: cst.BaseExpression | None, workers: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``f if num_workers > 0 else 2`` passed with ``num_workers=num_workers``: the value on
    the branch that runs without workers (``2``), or None."""
    if type(value) is not cst.IfExp or workers is None:
        return None
    test, counted = value.test, source_text(workers)  # type: ignore[attr-defined]
    if source_text(test) == counted:
        return value.orelse  # type: ignore[attr-defined]
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not and source_text(test.expression) == counted:
        return value.body  # type: ignore[attr-defined]
    if type(test) is not cst.Comparison or len(test.comparisons) != 1 or source_text(test.left) != counted:
        return None
    operator, bound = type(test.comparisons[0].operator), integer_value(test.comparisons[0].comparator)
    if (operator, bound) in ((cst.GreaterThan, 0), (cst.GreaterThanEqual, 1), (cst.NotEqual, 0)):
        return value.orelse  # type: ignore[attr-defined]
    return value.body if (operator, bound) in ((cst.Equal, 0), (cst.LessThan, 1), (cst.LessThanEqual, 0)) else None  # type: ignore[attr-defined]


def _without_workers(arguments: CallArguments) -> bool:
    """``num_workers=0`` written literally, or certainly left at its default of 0."""
    value = arguments.get("num_workers")
    if value is not None:
        return integer_value(value) == 0
    return arguments.is_absent("num_workers")


def _may_not_be_one(batch_size: cst.BaseExpression | None, assignments: Assignments) -> bool:
    """Whether a visibly passed ``batch_size`` is something other than 1 (``batch_sampler``
    only accepts the default, 1). A conditional or a name assigned 1 somewhere may be 1."""
    if batch_size is None:
        return False
    if isinstance(batch_size, cst.IfExp):
        return False
    if isinstance(batch_size, cst.Name) and batch_size.value != "None":
        values = assignments.known_values(batch_size.value)
        if any(integer_value(value) == 1 or isinstance(value, cst.IfExp) for value in values):
            return False
    return integer_value(batch_size) != 1
