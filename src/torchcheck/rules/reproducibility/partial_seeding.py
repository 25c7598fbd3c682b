from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.rule import Invalid, Rule, Valid

_TORCH_SEEDS = frozenset(
    {"torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all"}
)
_RANDOM_DRAWS = frozenset(
    "random randint randrange choice choices shuffle sample uniform gauss normalvariate triangular "
    "betavariate expovariate gammavariate lognormvariate vonmisesvariate paretovariate "
    "weibullvariate getrandbits randbytes binomialvariate".split()
)
_NUMPY_NOT_DRAWS = frozenset({"seed", "get_state", "set_state", "default_rng"})
_SOURCES = ("random", "numpy.random")  # in the order the message names them
# seeding methods of one generator object (`torch.Generator().manual_seed(0)`), not helpers
_GENERATOR_SEEDS = frozenset({"manual_seed", "manual_seed_all", "initial_seed", "seed"})


def _source_drawn(qualified: str) -> str | None:
    """``"random"`` for ``random.shuffle``, ``"numpy.random"`` for ``numpy.random.rand``."""
    module, _, function = qualified.rpartition(".")
    if module == "random" and function in _RANDOM_DRAWS:
        return "random"
    if module == "numpy.random" and function[:1].islower() and function not in _NUMPY_NOT_DRAWS:
        return "numpy.random"
    return None


def _last_name(call: cst.Call) -> str | None:
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    if isinstance(call.func, cst.Name):
        return call.func.value
    return None


class PartialSeeding(Rule):
    """
    ## What it does
    Checks for modules that seed PyTorch (`torch.manual_seed(...)`) but draw random numbers
    from Python's `random` or from `numpy.random` without seeding those too.

    ## Why is this bad?
    Each library has its own generator. `torch.manual_seed` fixes PyTorch's only, so data
    augmentation, shuffling or sampling done with `random` or `numpy.random` still differs
    from run to run, and the "seeded" experiment cannot be repeated. Seed every generator
    the code draws from, in one place.

    ## Example
    ```python
    import random
    import torch

    torch.manual_seed(0)
    random.shuffle(samples)
    ```

    Use instead:
    ```python
    import random
    import torch

    random.seed(0)
    torch.manual_seed(0)
    random.shuffle(samples)
    ```

    ## Fix safety
    There is no automatic fix: which seed to use, and where, is the project's choice.

    ## References
    - [Reproducibility](https://pytorch.org/docs/stable/notes/randomness.html)
    - [`torch.manual_seed`](https://pytorch.org/docs/stable/generated/torch.manual_seed.html)
    """

    code = "TCK502"
    name = "partial-seeding"
    message = "torch is seeded but `{sources}` is drawn from without a seed; runs are not repeatable"
    default_enabled = False
    required_text = ("manual_seed",)

    VALID = (
        Valid(
            """
import random
import numpy as np
import torch

def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

indices = np.random.permutation(100)
random.shuffle(files)
"""
        ),
        Valid(
            """
import random
import torch
from transformers import set_seed

set_seed(42)
torch.manual_seed(42)
random.shuffle(files)
"""
        ),
        Valid(
            """
import numpy as np
import torch
torch.manual_seed(0)
rng = np.random.default_rng(0)
noise = rng.normal(size=10)
"""
        ),
        Valid(
            """
import random
import torch
random.shuffle(files)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import random
import torch

torch.manual_seed(0)  # TCK502
random.shuffle(samples)
"""
        ),
        Invalid(
            """
import random
import numpy as np
import torch

def main(seed):
    random.seed(seed)
    torch.cuda.manual_seed_all(seed)  # TCK502
    mask = np.random.rand(10) > 0.5
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._torch_seed: cst.Call | None = None
        self._drawn: set[str] = set()
        self._seeded: set[str] = set()
        self._seeds_everything = False

    def visit_Call(self, node: cst.Call) -> None:
        last = _last_name(node)
        qualified = self.context.call_name(node)
        if qualified in _TORCH_SEEDS:
            if self._torch_seed is None or (
                qualified == "torch.manual_seed" and self.context.call_name(self._torch_seed) != "torch.manual_seed"
            ):
                self._torch_seed = node
            return
        if qualified == "random.seed":
            self._seeded.add("random")
        elif qualified == "numpy.random.seed":
            self._seeded.add("numpy.random")
        elif last is not None and "seed" in last.lower() and last not in _GENERATOR_SEEDS:
            self._seeds_everything = True  # set_seed(), seed_everything(): may seed them all
        elif qualified is not None:
            source = _source_drawn(qualified)
            if source is not None:
                self._drawn.add(source)

    def leave_Module(self, node: cst.Module) -> None:
        if self._torch_seed is None or self._seeds_everything:
            return
        unseeded = [source for source in _SOURCES if source in self._drawn and source not in self._seeded]
        if unseeded:
            self.report(self._torch_seed, self.message.format(sources="` and `".join(unseeded)))
