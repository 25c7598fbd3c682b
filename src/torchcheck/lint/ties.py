"""Tied parameters: an assignment in a module class that makes one submodule use another's
parameter (``self.output.weight = self.tok_embeddings.weight``), in ``__init__`` or a
``tie_weights()``-style method.

The project index keeps each class's ties as facts (:data:`TIE` + the submodule made to use
the parameter, valued with the submodule that owns it), so a file that shards a model whose
class lives in another file can ask about them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.nodes import source_text, subtree

# Methods in which an assignment between submodules' parameters ties them.
TYING_METHODS = frozenset({"__init__", "tie_weights", "_tie_weights", "tie_embeddings"})
TIE = "tie:"  # fact prefix: `tie:output` = "tok_embeddings"


@dataclass(frozen=True)
class Tie:
    source: str  # the submodule whose parameter is shared, relative to self: `tok_embeddings`
    user: str  # the submodule made to use it: `output`
    attribute: str  # `weight`
    node: cst.Assign


def tie_made_by(node: cst.Assign) -> Tie | None:
    """The tie an assignment makes: ``self.a.weight = self.b.weight`` (submodules differ,
    the attribute is the same)."""
    if len(node.targets) != 1:
        return None
    user, source = _relative(node.targets[0].target), _relative(node.value)
    if user is None or source is None or user[1] != source[1] or user[0] == source[0]:
        return None
    return Tie(source[0], user[0], user[1], node)


def ties_of(class_def: cst.ClassDef) -> Iterator[Tie]:
    """Every tie the tying methods of ``class_def`` make, on any branch."""
    for statement in class_def.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value in TYING_METHODS:
            for node in subtree(statement.body):
                tie = tie_made_by(node) if isinstance(node, cst.Assign) else None
                if tie is not None:
                    yield tie


def _relative(expression: cst.BaseExpression) -> tuple[str, str] | None:
    """``("tok_embeddings", "weight")`` for ``self.tok_embeddings.weight``; None unless the
    expression is an attribute of a submodule of ``self``."""
    if not isinstance(expression, cst.Attribute):
        return None
    text = source_text(expression)
    if not text.startswith("self.") or text.count(".") < 2 or not all(part.isidentifier() for part in text.split(".")):
        return None
    owner, _, attribute = text[len("self.") :].rpartition(".")
    return owner, attribute
