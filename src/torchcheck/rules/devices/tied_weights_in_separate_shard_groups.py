from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import project_class_of
from torchcheck.lint.flow import Event
from torchcheck.lint.guards import known_at
from torchcheck.lint.nodes import source_text
from torchcheck.lint.project import Condition
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.sharding import FSDP2_SHARDING, class_made_by, contains, root_name, sharded_paths
from torchcheck.lint.ties import TIE, TYING_METHODS, tie_made_by

_MESSAGE = (
    "{second} shares its {attribute} with {first} (tied at line {line}) but is sharded in a different "
    "fully_shard group; shard them together: fully_shard([{first}, {second}])"
)
_MESSAGE_ELSEWHERE = (
    "{second} shares a parameter with {first} (tied in `{owner}`) but is sharded in a different "
    "fully_shard group; shard them together: fully_shard([{first}, {second}])"
)


@dataclass(frozen=True)
class _Tie:
    owner: cst.ClassDef
    source: str  # the submodule whose parameter is shared, relative to self: `tok_embeddings`
    user: str  # the submodule made to use it: `output`
    attribute: str  # `weight`
    node: cst.CSTNode


@dataclass(frozen=True)
class _Shard:
    event: Event
    paths: tuple[str, ...]
    made_by: tuple[cst.ClassDef | str | None, ...]  # what made each path's root name


def _mentions_a_tie(test: cst.BaseExpression) -> bool:
    return "tie" in source_text(test).lower()


def _runs_only_untied(binder: Binder, event: Event) -> bool:
    """Whether ``event`` runs only where a tie flag is off: under ``if not cfg.tie_embeddings:``
    (also as a term of an ``and``), in the ``else:`` of ``if cfg.tie_embeddings:``, or past
    ``if cfg.tie_embeddings: return``."""
    return any(not held.holds and _mentions_a_tie(held.test) for held in known_at(binder, event.node))


class TiedWeightsInSeparateShardGroups(Rule):
    """
    ## What it does
    Checks for two submodules that share one `nn.Parameter` (a tied embedding and output
    projection) put in different `fully_shard` groups.

    ## Why is this bad?
    Each `fully_shard` group replaces the parameters it manages with its own sharded
    DTensor, so a parameter shared by two groups is sharded twice and the tie breaks without
    an error: the embedding and the output projection each receive only their share of the
    gradient and drift apart, and a model reloaded without FSDP re-ties them and evaluates
    weights that were never trained as one. From PyTorch 2.13, FSDP2 raises `ValueError`
    at the first forward instead; the rule reports it before a multi-node job launches. Put both
    submodules in one group (`fully_shard([model.tok_embeddings, model.output])`), or leave
    both to the root's.

    The tie is an assignment `self.output.weight = self.tok_embeddings.weight` in a model
    class (in `__init__` or `tie_weights()`), of the file or of another file of the project
    that the sharded model's annotation or constructor names (`model: Transformer`); for
    another file's class, two submodules sharded in different explicit groups are checked.
    A group is the innermost
    `fully_shard` call whose module (or list of modules) holds the submodule, else the
    root's. Sharding code that runs only when the tie flag is off
    (`if not cfg.tie_embeddings:`) is not reported, nor is a shared *module* sharded as its
    own group first (its parents' groups then skip it).

    ## Example
    ```python
    from torch import nn
    from torch.distributed.fsdp import fully_shard

    class LM(nn.Module):
        def __init__(self, vocab, dim):
            super().__init__()
            self.tok_embeddings = nn.Embedding(vocab, dim)
            self.output = nn.Linear(dim, vocab, bias=False)
            self.output.weight = self.tok_embeddings.weight

    def shard(model):
        fully_shard(model.tok_embeddings)
        fully_shard(model.output)
        fully_shard(model)
    ```

    Use instead:
    ```python
    from torch import nn
    from torch.distributed.fsdp import fully_shard

    class LM(nn.Module):
        def __init__(self, vocab, dim):
            super().__init__()
            self.tok_embeddings = nn.Embedding(vocab, dim)
            self.output = nn.Linear(dim, vocab, bias=False)
            self.output.weight = self.tok_embeddings.weight

    def shard(model):
        fully_shard([model.tok_embeddings, model.output])
        fully_shard(model)
    ```

    ## Fix safety
    There is no automatic fix: which group the tied pair joins (its own, or the root's)
    trades memory against communication.

    ## References
    - [FSDP was silently giving different weights for the embedding and output linear (facebookresearch/lingua#75)](https://github.com/facebookresearch/lingua/pull/75)
    - [Tail group left the tied `lm_head` to the root group; torch 2.13 rejects it (huggingface/accelerate#4171)](https://github.com/huggingface/accelerate/pull/4171)
    - [Detect shared parameters across FSDP groups at init (pytorch/pytorch#179532)](https://github.com/pytorch/pytorch/pull/179532)
    """

    code = "TCK212"
    name = "tied-weights-in-separate-shard-groups"
    message = "a tied parameter's two users are sharded in different fully_shard groups; shard them together"
    required_text = ("fully_shard",)

    VALID = (
        Valid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class LM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.output.weight = self.tok_embeddings.weight

model = LM(100, 16)
fully_shard([model.tok_embeddings, model.output])
fully_shard(model)
"""
        ),
        Valid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class LM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_embeddings = nn.Embedding(cfg.vocab, cfg.dim)
        self.output = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        if cfg.tie_embeddings:
            self.output.weight = self.tok_embeddings.weight

def shard(model, cfg):
    if not cfg.tie_embeddings:
        fully_shard(model.tok_embeddings)
        fully_shard(model.output)
    fully_shard(model)
"""
        ),
        Valid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class LM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tie_embeddings = cfg.tie_embeddings
        self.tok_embeddings = nn.Embedding(cfg.vocab, cfg.dim)
        self.output = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        if cfg.tie_embeddings:
            self.output.weight = self.tok_embeddings.weight

    def apply_fsdp(self):
        if self.output is not None and not self.tie_embeddings:
            fully_shard(self.output)
            fully_shard(self.tok_embeddings)
        fully_shard(self)
"""
        ),
        Valid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class LM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.output.weight.data.copy_(self.tok_embeddings.weight)

model = LM(100, 16)
fully_shard(model.tok_embeddings)
fully_shard(model.output)
fully_shard(model)
"""
        ),
        Valid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class TwoBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(8, 8)
        self.branch_a = nn.Sequential(nn.Linear(8, 8))
        self.branch_b = nn.Sequential(nn.Linear(8, 8))
        self.branch_a.proj = self.shared
        self.branch_b.proj = self.shared

model = TwoBranch()
fully_shard(model.shared)
fully_shard(model.branch_a)
fully_shard(model.branch_b)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class LM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.output.weight = self.tok_embeddings.weight

model = LM(100, 16)
fully_shard(model.tok_embeddings)
fully_shard(model.output)  # TCK212
fully_shard(model)
"""
        ),
        Invalid(
            """
from torch import nn
from torch.distributed.fsdp import fully_shard

class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(config.vocab_size, config.n_embd), ln_f=nn.LayerNorm(config.n_embd)))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.transformer.wte.weight = self.lm_head.weight

def apply_fsdp(model, mesh):
    fully_shard([model.transformer.ln_f, model.transformer.wte], mesh=mesh)
    fully_shard(model, mesh=mesh)  # TCK212
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._ties: list[_Tie] = []
        self._shards: list[_Shard] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        owner, function = self.context.current_class, self.context.flow.function
        if owner is None or function is None or function.name.value not in TYING_METHODS:
            return
        tie = tie_made_by(node)
        if tie is not None:
            self._ties.append(_Tie(owner, tie.source, tie.user, tie.attribute, node))

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.call_name(node) not in FSDP2_SHARDING:
            return
        paths = tuple(sharded_paths(self.context, node))
        if paths:
            made_by = tuple(class_made_by(self.context, root_name(path)) for path in paths)
            self._shards.append(_Shard(self.context.flow.event(node), paths, made_by))

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for tie in self._ties:
            for shard in self._shards:
                for path, made_by in zip(shard.paths, shard.made_by):
                    for model in _models_holding(tie, path, made_by):
                        second = self._second_group(tie, model, shard.event.function)
                        if second is not None and second.event.node not in reported:
                            reported.add(second.event.node)
                            self._report(tie, model, second)

        for function in {shard.event.function for shard in self._shards}:
            self._ties_elsewhere([shard for shard in self._shards if shard.event.function is function])

    def _ties_elsewhere(self, shards: list[_Shard]) -> None:
        """Submodules of a model whose class another file defines, sharded in different groups:
        reported if the project shows that class tying one to the other."""
        parts: dict[str, set[str]] = {}
        for shard in shards:
            for path, made_by in zip(shard.paths, shard.made_by):
                root, _, part = path.partition(".")
                if part.isidentifier() and not isinstance(made_by, cst.ClassDef):
                    parts.setdefault(root, set()).add(part)
        for root, names in parts.items():
            owner = project_class_of(self.context, root, shards[0].event.node)
            for first, second in ((a, b) for a in sorted(names) for b in sorted(names) if a != b):
                later = self._later_group([_group_of(f"{root}.{part}", shards) for part in (first, second)])
                if owner is None or later is None:
                    continue
                message = _MESSAGE_ELSEWHERE.format(first=f"{root}.{first}", second=f"{root}.{second}", owner=owner.name)
                self.report(later.event.node, message, conditions=(Condition(owner, f"{TIE}{second}", first),))  # type: ignore[union-attr]

    def _second_group(self, tie: _Tie, model: str, function: cst.FunctionDef | None) -> _Shard | None:
        """The later of the two groups the tie's modules land in, when they differ."""
        shards = [shard for shard in self._shards if shard.event.function is function]
        shared = f"{model}.{tie.source}.{tie.attribute}"
        if any(shared in shard.paths for shard in shards):
            return None  # a shared module sharded as its own group: its parents skip it
        return self._later_group([_group_of(f"{model}.{part}", shards) for part in (tie.source, tie.user)])

    def _later_group(self, groups: list[_Shard | None]) -> _Shard | None:
        """The later of two groups when both exist, differ, and may run with the weights tied."""
        if None in groups or groups[0] is groups[1] or any(_runs_only_untied(self.context.binder, group.event) for group in groups if group is not None):
            return None
        return max(groups, key=lambda group: group.event.order)  # type: ignore[union-attr]

    def _report(self, tie: _Tie, model: str, shard: _Shard) -> None:
        line = self.context.line_of(tie.node)
        message = _MESSAGE.format(first=f"{model}.{tie.source}", second=f"{model}.{tie.user}", attribute=tie.attribute, line=line)
        self.report(shard.event.node, message)


def _models_holding(tie: _Tie, path: str, made_by: cst.ClassDef | str | None) -> list[str]:
    """The model paths (``model`` in ``model.tok_embeddings``) at which a sharded ``path``
    meets one of the tie's submodules, for a model of the tying class or of unknown class."""
    if made_by is not None and made_by is not tie.owner:
        return []
    return [path[: -len(part) - 1] for part in (tie.source, tie.user) if path.endswith("." + part)]


def _group_of(module: str, shards: list[_Shard]) -> _Shard | None:
    """The innermost ``fully_shard`` call whose modules hold ``module``; None if none does."""
    holding = [(len(path), shard) for shard in shards for path in shard.paths if contains(path, module)]
    return max(holding, key=lambda pair: pair[0])[1] if holding else None
