from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.dataloaders import dataloader_arguments, integer_value, is_constant, is_dataloader_call
from torchcheck.lint.nodes import dotted_name, self_attribute, source_text, subtree
from torchcheck.lint.rule import Invalid, Rule, Valid

# Random-number generator objects that carry their own state. DataLoader reseeds Python's,
# NumPy's and PyTorch's *global* generators in each worker, never an object like these.
_RNG_CONSTRUCTORS = frozenset(
    {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator", "random.Random", "torch.Generator"}
)
# Calls that give a generator a new state after construction (a dataset reseeding per worker).
_RESEEDING_METHODS = frozenset({"seed", "manual_seed", "set_state", "setstate", "set_seed"})
_ITEM_METHODS = frozenset({"__getitem__", "__getitems__"})

_MESSAGE = (
    "`{rng}` is made once in `{cls}.__init__` and drawn from in `__getitem__`; the DataLoader at line {line} "
    "(num_workers={workers}, no worker_init_fn) copies it into every worker, so all workers draw the same numbers"
)


@dataclass(frozen=True)
class _Loader:
    call: cst.Call
    dataset_class: str
    workers: cst.BaseExpression


class DatasetRngSharedAcrossWorkers(Rule):
    """
    ## What it does
    Checks for `Dataset` classes whose `__getitem__` draws from a random-number generator
    object created in `__init__` (`np.random.default_rng()`, `np.random.RandomState()`,
    `random.Random()`, `torch.Generator()`), loaded in the same file by a `DataLoader` with
    `num_workers > 0` and no `worker_init_fn`.

    ## Why is this bad?
    Each `DataLoader` worker gets its own copy of the dataset, made when the workers start
    - generator objects included, all in the same state. PyTorch reseeds the *global*
    generators of `random`, NumPy and torch in every worker, but not generator objects
    the dataset holds: every worker then produces the same sequence of "random" crops,
    masks or negatives, so a batch holds `num_workers` copies of the same augmentation and
    the effective randomness shrinks accordingly. Create the generator per worker: in a
    `worker_init_fn` (seed it from `torch.utils.data.get_worker_info().seed`), or lazily
    inside the worker.

    A dataset that calls `get_worker_info()` or reseeds its generator outside `__init__`
    is taken to manage per-worker streams itself. Only loaders built in the same file are
    considered; drawing from NumPy's global `np.random.*` functions is a different matter
    (PyTorch reseeds those per worker since 1.9).

    ## Example
    ```python
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class RandomCrops(Dataset):
        def __init__(self, images, size):
            self.images = images
            self.size = size
            self.rng = np.random.default_rng()

        def __len__(self):
            return len(self.images)

        def __getitem__(self, index):
            image = self.images[index]
            top = self.rng.integers(0, image.shape[0] - self.size)
            return image[top : top + self.size]

    loader = DataLoader(RandomCrops(images, 224), batch_size=64, num_workers=8)
    ```

    Use instead:
    ```python
    import numpy as np
    from torch.utils.data import DataLoader, Dataset, get_worker_info

    class RandomCrops(Dataset):
        def __init__(self, images, size):
            self.images = images
            self.size = size
            self.rng = np.random.default_rng()

        def __len__(self):
            return len(self.images)

        def __getitem__(self, index):
            image = self.images[index]
            top = self.rng.integers(0, image.shape[0] - self.size)
            return image[top : top + self.size]

    def seed_worker(worker_id):
        info = get_worker_info()
        info.dataset.rng = np.random.default_rng(info.seed)

    loader = DataLoader(RandomCrops(images, 224), batch_size=64, num_workers=8, worker_init_fn=seed_worker)
    ```

    ## Fix safety
    There is no automatic fix: how each worker's generator should be seeded (from the
    loader's seed, for reproducibility, or from fresh entropy) is the author's choice.

    ## References
    - [PyTorch data loading: randomness in multi-process data loading](https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading)
    - [PyTorch FAQ: my data loader workers return identical random numbers](https://pytorch.org/docs/stable/notes/faq.html#my-data-loader-workers-return-identical-random-numbers)
    - [pytorch/pytorch#107131: workers do not reseed `torch.Generator` objects held by the dataset](https://github.com/pytorch/pytorch/pull/107131)
    """

    code = "TCK804"
    name = "dataset-rng-shared-across-workers"
    message = "RNG made once in the dataset's `__init__` is copied into every DataLoader worker; all workers draw the same numbers"
    required_text = ("DataLoader",)

    VALID = (
        Valid(
            """
import numpy as np
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __init__(self, images):
        self.images = images
        self.rng = np.random.default_rng(0)

    def __getitem__(self, index):
        return self.images[index][self.rng.integers(0, 8):]

loader = DataLoader(Crops(images), batch_size=32, num_workers=0)
"""
        ),
        Valid(
            """
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __init__(self, images):
        self.images = images
        self.rng = np.random.default_rng()

    def __getitem__(self, index):
        return self.images[index][self.rng.integers(0, 8):]

def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)

loader = DataLoader(Crops(images), batch_size=32, num_workers=4, worker_init_fn=seed_worker)
"""
        ),
        Valid(
            """
import numpy as np
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __init__(self, images, seed):
        self.images = images
        self.seed = seed
        self.rng = None

    def __getitem__(self, index):
        if self.rng is None:
            self.rng = np.random.default_rng()
        return self.images[index][self.rng.integers(0, 8):]

loader = DataLoader(Crops(images, 0), batch_size=32, num_workers=4)
"""
        ),
        Valid(
            """
import random
from torch.utils.data import DataLoader, Dataset, get_worker_info

class Negatives(Dataset):
    def __init__(self, items, seed):
        self.items = items
        self.rng = random.Random(seed)

    def __getitem__(self, index):
        info = get_worker_info()
        if info is not None:
            self.rng.seed(info.seed + index)
        return self.items[index], self.rng.choice(self.items)

loader = DataLoader(Negatives(items, 0), batch_size=32, num_workers=4)
"""
        ),
        Valid(
            """
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

class Noisy(Dataset):
    def __init__(self, data):
        self.data = data

    def __getitem__(self, index):
        return self.data[index] + np.random.normal(size=self.data[index].shape)

loader = DataLoader(Noisy(data), batch_size=32, num_workers=4)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import numpy as np
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __init__(self, images):
        self.images = images
        self.rng = np.random.default_rng()  # TCK804

    def __getitem__(self, index):
        return self.images[index][self.rng.integers(0, 8):]

loader = DataLoader(Crops(images), batch_size=32, num_workers=4)
"""
        ),
        Invalid(
            """
import torch
from torch.utils.data import DataLoader, Dataset

class MaskedTokens(Dataset):
    def __init__(self, tokens, mask_prob, seed):
        self.tokens = tokens
        self.mask_prob = mask_prob
        self.generator = torch.Generator().manual_seed(seed)  # TCK804

    def _mask(self, ids):
        keep = torch.rand(ids.shape, generator=self.generator) > self.mask_prob
        return ids * keep

    def __getitem__(self, index):
        return self._mask(self.tokens[index])

def main(args):
    dataset = MaskedTokens(load_tokens(args.path), 0.15, args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    for batch in loader:
        train_step(batch)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._loaders: list[_Loader] = []
        self._generators: set[cst.Call] = set()  # `np.random.default_rng()` and the like, as the walk resolves them

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.call_name(node) in _RNG_CONSTRUCTORS:
            self._generators.add(node)
        if is_dataloader_call(self.context, node):
            self._loader(node)

    # ------------------------------------------------------------ the loaders
    def _loader(self, call: cst.Call) -> None:
        arguments = dataloader_arguments(call)
        if arguments.star_args or arguments.star_kwargs:
            return
        init = arguments.get("worker_init_fn")
        if init is not None and not is_constant(init, "None"):
            return
        workers = arguments.get("num_workers")
        dataset = arguments.get("dataset")
        if workers is None or dataset is None or self._may_be_zero(workers):
            return
        dataset_class = self._constructed_class(dataset)
        if dataset_class is not None:
            self._loaders.append(_Loader(call, dataset_class, workers))

    def _may_be_zero(self, workers: cst.BaseExpression) -> bool:
        """A literal 0, or a local name whose visible value (or parameter default) is 0."""
        value = integer_value(workers)
        if value is not None:
            return value == 0
        if isinstance(workers, cst.Name):
            binding = self.context.flow.last_binding(workers.value)
            if binding is not None:
                default = binding.node.default if isinstance(binding.node, cst.Param) else binding.value
                return integer_value(default) == 0
        return False

    def _constructed_class(self, dataset: cst.BaseExpression) -> str | None:
        """``Crops`` for ``Crops(...)``, or for a local name last bound to ``Crops(...)``."""
        if isinstance(dataset, cst.Name):
            binding = self.context.flow.last_binding(dataset.value)
            dataset = binding.value if binding is not None and binding.value is not None else dataset
        if isinstance(dataset, cst.Call) and isinstance(dataset.func, cst.Name):
            return dataset.func.value
        return None

    # ------------------------------------------------------------ decision
    def leave_Module(self, node: cst.Module) -> None:
        if not self._loaders:
            return
        outside_definitions = lambda found: found is not node and isinstance(found, (cst.FunctionDef, cst.ClassDef))
        # top-level classes: the ones a loader can name
        classes = {found.name.value: found for found in subtree(node, outside_definitions) if isinstance(found, cst.ClassDef)}
        reported: set[str] = set()
        for loader in self._loaders:
            owner = classes.get(loader.dataset_class)
            shared = self._shared_generators(owner) if owner is not None and loader.dataset_class not in reported else []
            for creation in shared:
                self._report(owner, creation, loader)  # type: ignore[arg-type]
            if shared:
                reported.add(loader.dataset_class)

    def _shared_generators(self, owner: cst.ClassDef) -> list[cst.Call]:
        """The generators ``__init__`` stores on ``self`` that ``__getitem__`` draws from
        (directly or through the methods it calls) and no other method reseeds; none where
        the class asks ``get_worker_info()``. A function inside a method counts as the method;
        a nested class is a class of its own."""
        rngs: dict[str, cst.Call] = {}  # attribute -> its creation in __init__
        reads: dict[str, set[str]] = {}  # method -> `self.<attribute>`s it reads
        calls: dict[str, set[str]] = {}  # method -> `self.<method>()`s it calls
        reseeded: set[str | None] = set()  # attributes given a new state outside __init__ (None: not one)
        methods = lambda found: found is not owner and isinstance(found, (cst.FunctionDef, cst.ClassDef))
        for method in (found for found in subtree(owner, methods) if isinstance(found, cst.FunctionDef)):
            name, assigned = method.name.value, set()
            for found in subtree(method, lambda inner: isinstance(inner, cst.ClassDef)):
                if isinstance(found, cst.Assign):
                    for target in found.targets:
                        attribute = self_attribute(target.target)
                        if attribute is None:
                            continue
                        assigned.add(target.target)
                        if name != "__init__":
                            reseeded.add(attribute)
                        elif self._is_generator(found.value):
                            rngs[attribute] = found.value  # type: ignore[assignment]
                elif isinstance(found, cst.Attribute) and self_attribute(found) is not None and found not in assigned:
                    reads.setdefault(name, set()).add(found.attr.value)
                elif isinstance(found, cst.Call):
                    if (dotted_name(found.func) or "").rsplit(".", 1)[-1] == "get_worker_info":
                        return []  # it arranges per-worker streams itself
                    if self_attribute(found.func) is not None:
                        calls.setdefault(name, set()).add(found.func.attr.value)  # type: ignore[attr-defined]
                    if isinstance(found.func, cst.Attribute) and found.func.attr.value in _RESEEDING_METHODS and name != "__init__":
                        reseeded.add(self_attribute(found.func.value))
        drawn = _item_reads(reads, calls)
        return [creation for attribute, creation in rngs.items() if attribute in drawn and attribute not in reseeded]

    def _is_generator(self, value: cst.BaseExpression) -> bool:
        """A generator made here, or seeded as made: ``torch.Generator().manual_seed(seed)``
        (``manual_seed`` returns the generator)."""
        seeded = isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "manual_seed"
        return value in self._generators or seeded and value.func.value in self._generators  # type: ignore[union-attr]

    def _report(self, owner: cst.ClassDef, creation: cst.Call, loader: _Loader) -> None:
        message = _MESSAGE.format(
            rng=_short(creation),
            cls=owner.name.value,
            line=self.context.line_of(loader.call),
            workers=source_text(loader.workers),
        )
        self.report(creation, message)


def _item_reads(reads: dict[str, set[str]], calls: dict[str, set[str]]) -> set[str]:
    """The attributes ``__getitem__`` reads, directly or through methods it calls."""
    seen: set[str] = set()
    pending = [name for name in _ITEM_METHODS if name in reads or name in calls]
    while pending:
        method = pending.pop()
        if method not in seen:
            seen.add(method)
            pending.extend(calls.get(method, ()))
    return {attribute for method in seen for attribute in reads.get(method, ())}


def _short(creation: cst.Call) -> str:
    """``np.random.default_rng()`` for the creation call, without its arguments."""
    func = creation.func
    if isinstance(func, cst.Attribute) and func.attr.value == "manual_seed" and isinstance(func.value, cst.Call):
        func = func.value.func
    return f"{source_text(func)}()"
