"""A fix is safe only where the code shows what the receiver is (issue 10's public cases).

`--fix` (``fix_source`` without ``unsafe``) must leave code unchanged where the receiver's
kind comes only from a naming convention or an annotation; ``--unsafe-fixes`` still fixes it.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.registry import rules_by_code
from torchcheck.lint.rule import FixSafety, Invalid, Rule


def _fix_kinds(source: str, code: str) -> list[str]:
    """The applicability of each finding's fix ("safe", "unsafe" or "none")."""
    result = lint_source(textwrap.dedent(source).encode(), "example.py", rules_by_code([code]))
    return [d.fix.applicability if d.fix is not None else "none" for d in result.diagnostics]


def _fixed(source: str, code: str, *, unsafe: bool) -> str:
    text = textwrap.dedent(source)
    result = fix_source(text.encode(), "example.py", rules_by_code([code]), unsafe=unsafe)
    return (result.fixed_source or text.encode()).decode()


# ---------------------------------------------------------------- the engine honours per-finding safety
class _Downgrading(Rule):
    """Reports every `fix_me(...)` call; downgrades the fix where the call says so."""

    code = "TCK998"
    name = "test-downgrading"
    message = "test"
    fix_title = "Rename"
    fix_safety = FixSafety.SAFE
    INVALID = (Invalid("fix_me()  # TCK998\n", "fixed()  # TCK998\n"),)
    requested: FixSafety | None = None

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "fix_me":
            safety = FixSafety.UNSAFE if node.args else self.requested
            self.report(node, replacement=node.with_changes(func=cst.Name("fixed"), args=()), fix_safety=safety)


class _DeclaredUnsafe(_Downgrading):
    code = "TCK997"
    name = "test-declared-unsafe"
    fix_safety = FixSafety.UNSAFE
    requested = FixSafety.SAFE


def test_a_finding_downgraded_to_unsafe_is_fixed_only_with_unsafe_fixes() -> None:
    source = b"fix_me()\nfix_me(1)\n"
    applicability = [d.fix.applicability for d in lint_source(source, "x.py", [_Downgrading]).diagnostics if d.fix]
    assert applicability == ["safe", "unsafe"]
    assert fix_source(source, "x.py", [_Downgrading]).fixed_source == b"fixed()\nfix_me(1)\n"
    assert fix_source(source, "x.py", [_Downgrading], unsafe=True).fixed_source == b"fixed()\nfixed()\n"


def test_a_finding_never_gets_a_safer_fix_than_its_rule_declares() -> None:
    source = b"fix_me()\n"
    (diagnostic,) = lint_source(source, "x.py", [_DeclaredUnsafe]).diagnostics
    assert diagnostic.fix is not None and diagnostic.fix.applicability == "unsafe"
    assert fix_source(source, "x.py", [_DeclaredUnsafe]).fixed_source is None


def test_asking_for_no_fix_safety_with_a_replacement_is_a_programming_error() -> None:
    class _Confused(_Downgrading):
        code = "TCK996"
        name = "test-confused"
        requested = FixSafety.NONE

    result = lint_source(b"fix_me()\n", "x.py", [_Confused])
    (diagnostic,) = result.diagnostics
    assert "internal error" in diagnostic.message and "FixSafety.NONE" in diagnostic.message


# ---------------------------------------------------------------- TCK105 forward-called-directly
OPENCV_NET = """
import cv2
import torch.nn as nn

class DetectMultiBackend(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.net = cv2.dnn.readNetFromONNX(weights)

    def forward(self, image):
        self.net.setInput(image.cpu().numpy())
        return self.net.forward()
"""


def test_forward_on_an_opencv_network_is_not_reported() -> None:
    assert _fix_kinds(OPENCV_NET, "TCK105") == []


CONVENTIONAL_MODEL = """
logits = model.forward(images)
"""
CONSTRUCTED_MODEL = """
import torch.nn as nn
model = nn.Linear(8, 2)
logits = model.forward(images)
"""


def test_forward_on_a_conventionally_named_model_offers_only_an_unsafe_fix() -> None:
    assert _fix_kinds(CONVENTIONAL_MODEL, "TCK105") == ["unsafe"]
    assert _fixed(CONVENTIONAL_MODEL, "TCK105", unsafe=False) == textwrap.dedent(CONVENTIONAL_MODEL)
    assert _fixed(CONVENTIONAL_MODEL, "TCK105", unsafe=True) == "\nlogits = model(images)\n"


def test_forward_on_a_module_built_in_the_code_is_fixed_by_fix() -> None:
    assert _fix_kinds(CONSTRUCTED_MODEL, "TCK105") == ["safe"]
    assert _fixed(CONSTRUCTED_MODEL, "TCK105", unsafe=False).endswith("logits = model(images)\n")


# ---------------------------------------------------------------- TCK704 tensor-from-tensor
KORNIA_SIZE = """
import torch
from torch import Tensor

def normalize_keypoints(keypoints: Tensor, size: Tensor) -> Tensor:
    if isinstance(size, torch.Size):
        size = torch.tensor(size)[None]
    return keypoints / size.to(keypoints)
"""
ANNOTATED_ONLY = """
import torch

def make_target(prediction: torch.Tensor) -> torch.Tensor:
    return torch.tensor(prediction)
"""


def test_tensor_of_a_size_behind_an_isinstance_check_is_not_reported() -> None:
    assert _fix_kinds(KORNIA_SIZE, "TCK704") == []


def test_tensor_of_an_annotated_parameter_offers_only_an_unsafe_fix() -> None:
    assert _fix_kinds(ANNOTATED_ONLY, "TCK704") == ["unsafe"]
    assert _fixed(ANNOTATED_ONLY, "TCK704", unsafe=False) == textwrap.dedent(ANNOTATED_ONLY)
    assert "return prediction.clone().detach()" in _fixed(ANNOTATED_ONLY, "TCK704", unsafe=True)


def test_tensor_of_a_tensor_built_in_the_code_is_fixed_by_fix() -> None:
    source = "import torch\nx = torch.randn(3)\ny = torch.tensor(x)\n"
    assert _fix_kinds(source, "TCK704") == ["safe"]
    assert _fixed(source, "TCK704", unsafe=False).endswith("y = x.clone().detach()\n")


# ---------------------------------------------------------------- TCK201 transfer-after-construction
PEFT_GENERATOR = """
import torch

def init_vector(shape, seed, device):
    generator = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(shape, generator=generator, device=generator.device).to(device)
"""
DIFFUSERS_CPU_GENERATOR = """
import torch

def randn_tensor(shape, generator, device):
    return torch.randn(shape, generator=generator).to(device)
"""
RANDOM_FACTORY = """
import torch
noise = torch.randn(4, 16).to("cuda")
"""
FILLED_FACTORY = """
import torch
mask = torch.ones(16, 16).to("cuda")
"""


@pytest.mark.parametrize("source", [PEFT_GENERATOR, DIFFUSERS_CPU_GENERATOR], ids=["device-of-generator", "cpu-generator"])
def test_a_factory_with_a_generator_is_not_reported(source: str) -> None:
    assert _fix_kinds(source, "TCK201") == []


def test_a_factory_that_already_passes_device_is_not_reported() -> None:
    assert _fix_kinds('import torch\nx = torch.zeros(3, device="cpu").to("cuda")\n', "TCK201") == []


def test_moving_a_random_factory_offers_only_an_unsafe_fix_since_the_stream_changes() -> None:
    assert _fix_kinds(RANDOM_FACTORY, "TCK201") == ["unsafe"]
    assert _fixed(RANDOM_FACTORY, "TCK201", unsafe=False) == textwrap.dedent(RANDOM_FACTORY)
    assert _fixed(RANDOM_FACTORY, "TCK201", unsafe=True).endswith('noise = torch.randn(4, 16, device="cuda")\n')


def test_moving_a_filled_factory_is_fixed_by_fix() -> None:
    assert _fix_kinds(FILLED_FACTORY, "TCK201") == ["safe"]
    assert _fixed(FILLED_FACTORY, "TCK201", unsafe=False).endswith('mask = torch.ones(16, 16, device="cuda")\n')


# ---------------------------------------------------------------- TCK202 transfer-result-discarded
LOADER_BATCHES = """
for images, labels in loader:
    images.to(device)
"""
ANNOTATED_TENSOR = """
from torch import Tensor

def prepare(x: Tensor) -> Tensor:
    x.cuda()
    return x
"""
BUILT_TENSOR = """
import torch
x = torch.zeros(3)
x.cuda()
"""


@pytest.mark.parametrize("source", [LOADER_BATCHES, ANNOTATED_TENSOR], ids=["conventional-loader", "annotation"])
def test_a_discarded_transfer_on_a_tensor_known_by_name_or_annotation_offers_only_an_unsafe_fix(source: str) -> None:
    assert _fix_kinds(source, "TCK202") == ["unsafe"]
    assert _fixed(source, "TCK202", unsafe=False) == textwrap.dedent(source)
    assert _fixed(source, "TCK202", unsafe=True) != textwrap.dedent(source)


def test_a_discarded_transfer_on_a_tensor_built_in_the_code_is_fixed_by_fix() -> None:
    assert _fix_kinds(BUILT_TENSOR, "TCK202") == ["safe"]
    assert _fixed(BUILT_TENSOR, "TCK202", unsafe=False).endswith("x = x.cuda()\n")


def test_a_discarded_transfer_on_a_tensor_a_function_of_the_file_returns_is_fixed_by_fix() -> None:
    source = """
    import torch

    def causal_mask(size):
        return torch.tril(torch.ones(size, size))

    mask = causal_mask(8)
    mask.cuda()
    """
    assert _fix_kinds(source, "TCK202") == ["safe"]
    assert _fixed(source, "TCK202", unsafe=False).endswith("mask = mask.cuda()\n")


def test_a_discarded_conversion_on_what_a_project_model_builder_returns_is_not_reported() -> None:
    source = """
    from .model import build_model

    def load(state_dict, device):
        clip = build_model(state_dict).to(device)
        clip.float()
        return clip
    """
    assert _fix_kinds(source, "TCK202") == []


# ---------------------------------------------------------------- TCK702 nan-equality, TCK905 requires-grad-misspelled
def test_nan_comparison_on_an_annotated_tensor_offers_only_an_unsafe_fix() -> None:
    annotated = 'import torch\ndef bad(loss: torch.Tensor):\n    return loss == float("nan")\n'
    built = 'import torch\nloss = torch.zeros(1)\nbad = loss == float("nan")\n'
    assert _fix_kinds(annotated, "TCK702") == ["unsafe"]
    assert _fix_kinds(built, "TCK702") == ["safe"]


def test_requires_grad_call_on_a_receiver_known_only_by_name_offers_only_an_unsafe_fix() -> None:
    source = """
    import torch
    from torch import nn
    backbone = nn.Linear(4, 4)
    backbone.require_grad = False
    model.require_grad = False
    """
    assert _fix_kinds(source, "TCK905") == ["safe", "unsafe"]
    assert _fixed(source, "TCK905", unsafe=False).endswith("backbone.requires_grad_(False)\nmodel.require_grad = False\n")
