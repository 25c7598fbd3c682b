from __future__ import annotations

import libcst as cst

from torchcheck.lint.kinds import Evidence, Kind
from torchcheck.lint.nodes import called_name
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_MATERIALISERS = frozenset({"list", "tuple"})
_NOT_LOADERS = (cst.GeneratorExp, cst.ListComp, cst.List, cst.Tuple)


class DataLoaderLenByList(Rule):
    """
    ## What it does
    Checks for `len(list(loader))` (or `len(tuple(loader))`) on a `DataLoader`, which counts
    the batches by loading every one of them.

    ## Why is this bad?
    `list(loader)` runs a whole epoch: every sample is read from disk, decoded, transformed
    and collated (by worker processes that are started for the occasion), and every batch
    is kept in memory at once, only for `len` to count them and throw them away. On a real
    dataset that is minutes of start-up and gigabytes of memory, and it draws from the
    sampler's random stream, so the first training epoch sees a different shuffle than it
    would have. `len(loader)` returns the number of batches from the sampler and the batch
    size without loading anything.

    A count inside an `assert` or a `test_*` function is not reported: there, iterating the
    loader to see what it really yields is the point.

    ## Example
    ```python
    from torch.utils.data import DataLoader

    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    steps_per_epoch = len(list(loader))
    ```

    Use instead:
    ```python
    from torch.utils.data import DataLoader

    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    steps_per_epoch = len(loader)
    ```

    ## Fix safety
    The fix replaces `len(list(loader))` with `len(loader)`. It is unsafe: a `DataLoader`
    over an `IterableDataset` without `__len__` has no length (`len(loader)` raises
    `TypeError`), and over an `IterableDataset` with one, `len(loader)` is the dataset's
    estimate, which can differ from the number of batches actually produced (with several
    workers, or when the dataset's length is the number of samples rather than of batches).
    A name that only suggests a loader (`train_loader`) may also be a generator.

    ## References
    - [Using `len(list(dataloader))` to get the length of a dataloader is inefficient (awslabs/graphstorm#532)](https://github.com/awslabs/graphstorm/issues/532)
    - [`torch.utils.data.DataLoader`](https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)
    - [`len(DataLoader)` for an `IterableDataset` (pytorch/pytorch#37753)](https://github.com/pytorch/pytorch/issues/37753)
    """

    code = "TCK207"
    name = "dataloader-len-by-list"
    message = "`len(list(loader))` loads every batch of the dataset to count them; `len(loader)` counts without loading"
    fix_title = "Use `len(loader)`"
    fix_safety = FixSafety.UNSAFE
    required_text = ("len(",)

    VALID = (
        Valid(
            """
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=32)
steps_per_epoch = len(loader)
first_batches = list(loader)[:2]
"""
        ),
        Valid(
            """
files = sorted(folder.glob("*.pt"))
count = len(list(files))
tokens = len(list(tokenizer(text)))
"""
        ),
        Valid(
            """
def len(value):
    return 0

batches = len(list(train_loader))
"""
        ),
        Valid(
            """
loader = (batch for batch in stream if batch is not None)
count = len(list(loader))
"""
        ),
        Valid(
            """
loader = ScenarioLoader(root)
scenarios = len(list(loader))
"""
        ),
        Valid(
            """
from torch.utils.data import DataLoader

def test_loader_yields_as_many_batches_as_it_claims(dataset):
    loader = DataLoader(dataset, batch_size=4)
    produced = len(list(loader))
    assert produced == len(loader)

def check_sharding(loader):
    assert len(loader) == len(list(loader))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=32, shuffle=True)
steps_per_epoch = len(list(loader))  # TCK207
""",
            expected_replacement="""
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=32, shuffle=True)
steps_per_epoch = len(loader)  # TCK207
""",
        ),
        Invalid(
            """
class Trainer:
    def total_steps(self):
        return len(tuple(iter(self.train_loader))) * self.epochs  # TCK207
""",
            expected_replacement="""
class Trainer:
    def total_steps(self):
        return len(self.train_loader) * self.epochs  # TCK207
""",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not _is_builtin_call(node, "len") or self.context.flow.last_binding("len") is not None:
            return
        loader = _materialised_iterable(node)
        if loader is None or self.context.kind_of(loader) is not Kind.DATALOADER:
            return
        if self._built_otherwise(loader) or self._counts_on_purpose(node):
            return
        self.report(node, replacement=node.with_changes(args=[cst.Arg(loader)]))

    def _built_otherwise(self, loader: cst.BaseExpression) -> bool:
        """A name that only suggests a loader but is bound to a generator, a comprehension or
        an instance of some other class (``loader = ScenarioLoader(path)``)."""
        if not isinstance(loader, cst.Name) or self.context.evidence_of(loader) is Evidence.STRONG:
            return False
        binding = self.context.flow.last_binding(loader.value)
        if binding is None:
            return False
        value = binding.value
        if isinstance(value, cst.Call):
            return (called_name(value) or "")[:1].isupper()  # a class that is not torch's DataLoader
        return isinstance(value, _NOT_LOADERS)

    def _counts_on_purpose(self, call: cst.Call) -> bool:
        """A test that checks what iterating the loader yields (``assert len(list(loader)) == 3``)."""
        function = self.context.flow.function
        return self.context.binder.enclosing(call, cst.Assert) is not None or (function is not None and function.name.value.startswith("test_"))


def _materialised_iterable(call: cst.Call) -> cst.BaseExpression | None:
    """``loader`` in ``len(list(loader))``, ``len(tuple(iter(loader)))``; else None."""
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    inner = call.args[0].value
    if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value in _MATERIALISERS):
        return None
    if len(inner.args) != 1 or inner.args[0].keyword is not None or inner.args[0].star:
        return None
    iterable = inner.args[0].value
    if _is_builtin_call(iterable, "iter") and len(iterable.args) == 1 and not iterable.args[0].star:  # type: ignore[union-attr]
        return iterable.args[0].value  # type: ignore[union-attr]
    return iterable


def _is_builtin_call(expression: cst.BaseExpression, name: str) -> bool:
    return type(expression) is cst.Call and type(expression.func) is cst.Name and expression.func.value == name
