"""TCK601 with classes of another file: each assignment of an attribute is judged by its own
items, and a module class that holds no state is left alone as the page says."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

LAYERS = """
from torch import nn

class always:
    def __init__(self, value):
        self.value = value

class Sinusoidal(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

class Learned(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.emb = nn.Embedding(512, dim)

class VariationalDropout(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
    def forward(self, x):
        return x if not self.training else nn.functional.dropout(x, self.p)

class ScaledLoss(nn.Module):
    def __init__(self, p=2, reduction="mean"):
        super().__init__()
        self.p = p
        self.reduction = reduction
"""

MODEL = """
from torch import nn
from layers import Learned, ScaledLoss, Sinusoidal, VariationalDropout, always

class Wrapper(nn.Module):
    def __init__(self, dims, kind):
        super().__init__()
        if kind == "none":
            self.pos_emb = [always(0) for _ in dims]
        elif kind == "sinusoidal":
            self.pos_emb = [Sinusoidal(d) for d in dims]
        else:
            self.pos_emb = [Learned(d) for d in dims]
        self.criterions = {"l2": ScaledLoss(), "l1": ScaledLoss(p=1)}
        self.dropouts = [VariationalDropout(0.1) for _ in dims]
"""


def test_each_assignment_is_judged_by_its_own_items(tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(textwrap.dedent(LAYERS), encoding="utf-8")
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK601",), use_cache=False))
    # the plain class's list and the stateless ones' are left alone; the learned embeddings are
    # lost, and the dropouts would not follow eval()
    assert [(Path(d.filename).name, d.location.row) for d in result.diagnostics] == [("model.py", 13), ("model.py", 15)]
