"""The evidence behind inferred kinds, and isinstance narrowing."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import UNKNOWN, Evidence, Inferred, Kind
from torchcheck.lint.walker import BatchedWalker


class _Probe:
    """Records what the context infers for every `probe(expr)` call's argument."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.seen: list[Inferred] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.seen.append(self.context.kind_and_evidence(node.args[0].value))


def probe(source: str) -> list[Inferred]:
    context = LintContext()
    recorder = _Probe(context)
    BatchedWalker([context, recorder]).walk(cst.parse_module(textwrap.dedent(source)))
    return recorder.seen


STRONG, ANNOTATION, CONVENTION = Evidence.STRONG, Evidence.ANNOTATION, Evidence.CONVENTION


def test_constructions_are_strong_annotations_weaker_and_conventional_names_weakest() -> None:
    seen = probe(
        """
        import torch
        from torch import nn
        def step(features: torch.Tensor, encoder: nn.Module):
            x = torch.zeros(3)
            head = nn.Linear(3, 3)
            probe(x); probe(head); probe(features); probe(encoder); probe(model); probe(optimizer)
        """
    )
    assert seen == [
        (Kind.TENSOR, STRONG),
        (Kind.MODULE, STRONG),
        (Kind.TENSOR, ANNOTATION),
        (Kind.MODULE, ANNOTATION),
        (Kind.MODULE, CONVENTION),
        (Kind.OPTIMIZER, CONVENTION),
    ]


def test_evidence_is_ordered_from_a_naming_convention_up_to_code_that_shows_it() -> None:
    assert Evidence.CONVENTION < Evidence.ANNOTATION < Evidence.STRONG
    assert min(Evidence.STRONG, Evidence.CONVENTION) is Evidence.CONVENTION


def test_kind_of_answers_as_before_for_rules_that_need_only_the_kind() -> None:
    context = LintContext()
    seen: list[tuple[Kind | None, Evidence | None]] = []

    class Both:
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "probe":
                argument = node.args[0].value
                seen.append((context.kind_of(argument), context.evidence_of(argument)))

    source = "import torch\nx = torch.ones(2)\nprobe(x); probe(model); probe(unknown)\n"
    BatchedWalker([context, Both()]).walk(cst.parse_module(source))
    assert seen == [(Kind.TENSOR, STRONG), (Kind.MODULE, CONVENTION), (None, None)]


def test_derived_values_keep_the_evidence_of_their_source() -> None:
    seen = probe(
        """
        import torch
        def f(y: torch.Tensor):
            x = torch.randn(3)
            probe(y.float()); probe(x[0]); probe(x + y); probe(y * 2); probe(model(x)); probe(y.device)
        """
    )
    assert seen == [
        (Kind.TENSOR, ANNOTATION),
        (Kind.TENSOR, STRONG),
        (Kind.TENSOR, STRONG),  # a tensor if either side is one: the surer side decides
        (Kind.TENSOR, ANNOTATION),
        (Kind.GRAPH_TENSOR, CONVENTION),
        (Kind.DEVICE, ANNOTATION),
    ]


def test_batches_of_a_conventionally_named_loader_are_tensors_by_convention_only() -> None:
    seen = probe(
        """
        import torch
        for images, labels in loader:
            probe(images)
        for batch in torch.utils.data.DataLoader(dataset):
            probe(batch)
        """
    )
    assert seen == [(Kind.TENSOR, CONVENTION), (Kind.TENSOR, STRONG)]


def test_an_annotated_assignment_prefers_what_the_code_builds_over_the_annotation() -> None:
    seen = probe(
        """
        import torch
        mask: torch.Tensor = torch.ones(3)
        loaded: torch.Tensor = load_mask()
        probe(mask); probe(loaded)
        """
    )
    assert seen == [(Kind.TENSOR, STRONG), (Kind.TENSOR, ANNOTATION)]


def test_a_value_built_by_a_non_torch_package_is_not_what_its_name_suggests() -> None:
    seen = probe(
        """
        import cv2
        import numpy as np
        import torch.nn as nn
        net = cv2.dnn.readNetFromONNX("yolo.onnx")
        model = np.load("weights.npy")
        probe(net); probe(model)

        class Backend(nn.Module):
            def __init__(self, weights):
                super().__init__()
                self.net = cv2.dnn.readNetFromONNX(weights)
            def forward(self, image):
                probe(self.net); probe(self.model)
        """
    )
    assert seen == [(Kind.OTHER, STRONG), (Kind.OTHER, STRONG), (Kind.OTHER, STRONG), (Kind.MODULE, CONVENTION)]


def test_locals_copied_into_self_become_attributes_with_their_kinds() -> None:
    seen = probe(
        """
        import cv2
        import torch
        import torch.nn as nn

        class Backend(nn.Module):
            def __init__(self, weights, dnn):
                super().__init__()
                if dnn:
                    net = cv2.dnn.readNetFromONNX(weights)
                scale = torch.ones(1)
                self.__dict__.update(locals())
            def forward(self, image):
                probe(self.net); probe(self.scale)
        """
    )
    assert seen == [(Kind.OTHER, STRONG), (Kind.TENSOR, STRONG)]


def test_an_isinstance_check_gives_the_name_the_kind_its_class_says_inside_the_branch() -> None:
    seen = probe(
        """
        import numpy as np
        import torch
        from torch import nn
        def normalize(size: torch.Tensor, layer, model):
            if isinstance(size, torch.Size):
                probe(size)
            elif isinstance(size, torch.Tensor):
                probe(size)
            elif isinstance(size, (list, tuple)):
                probe(size)
            if isinstance(layer, nn.Module) and layer.training:
                probe(layer)
            if isinstance(model, np.ndarray): probe(model)
            if isinstance(model, SomeWrapper):
                probe(model)
            probe(size); probe(layer); probe(model)
        """
    )
    assert seen == [
        (Kind.OTHER, STRONG),
        (Kind.TENSOR, STRONG),
        (Kind.OTHER, STRONG),
        (Kind.MODULE, STRONG),
        (Kind.OTHER, STRONG),
        UNKNOWN,  # an instance of a class the linter does not know: no convention either
        (Kind.TENSOR, ANNOTATION),
        UNKNOWN,
        (Kind.MODULE, CONVENTION),
    ]


def test_a_failed_isinstance_check_rules_out_the_kind_it_tests_for() -> None:
    seen = probe(
        """
        import torch
        def as_tensor(values: torch.Tensor, other: torch.Tensor):
            if not isinstance(values, torch.Tensor):
                probe(values)
            if isinstance(other, torch.Tensor):
                probe(other)
            else:
                probe(other)
            if not isinstance(values, list):
                probe(values)
        """
    )
    assert seen == [UNKNOWN, (Kind.TENSOR, STRONG), UNKNOWN, (Kind.TENSOR, ANNOTATION)]


def test_an_isinstance_check_keeps_a_graph_tensor_a_graph_tensor() -> None:
    seen = probe(
        """
        import torch
        out = torch.nn.Linear(2, 2)(torch.ones(2))
        if isinstance(out, torch.Tensor):
            probe(out)
        """
    )
    assert seen == [(Kind.GRAPH_TENSOR, STRONG)]


def test_an_assignment_inside_a_narrowed_branch_outlives_the_branch() -> None:
    seen = probe(
        """
        import torch
        def f(size: torch.Tensor):
            if isinstance(size, torch.Size):
                probe(size)
                size = torch.tensor(size)
                probe(size)
            probe(size)
        """
    )
    assert seen == [(Kind.OTHER, STRONG), (Kind.TENSOR, STRONG), (Kind.TENSOR, STRONG)]


def test_an_isinstance_check_that_exits_otherwise_narrows_the_rest_of_the_block() -> None:
    seen = probe(
        """
        import torch.nn as nn
        def run(layer, other, third, x):
            if not isinstance(layer, nn.Linear):
                raise TypeError("only linear layers")
            probe(layer)
            assert isinstance(other, nn.Conv2d)
            probe(other)
            if not isinstance(third, nn.Linear):
                print("not a layer")
            probe(third)
            for item in x:
                if not isinstance(item, nn.Linear):
                    continue
                probe(item)
            probe(item)
        """
    )
    assert seen == [(Kind.MODULE, STRONG), (Kind.MODULE, STRONG), UNKNOWN, (Kind.MODULE, STRONG), UNKNOWN]


def test_private_spellings_and_role_marks_keep_a_conventional_name() -> None:
    from torchcheck.lint.kinds import conventional_kind

    assert [conventional_kind(name) for name in ("_grad_scaler", "optim_g", "netD", "model2", "opt_1")] == [
        Kind.SCALER, Kind.OPTIMIZER, Kind.MODULE, Kind.MODULE, Kind.OPTIMIZER
    ]
    assert [conventional_kind(name) for name in ("devices", "models", "model_name", "device_ids", "build_model2")] == [None] * 5
    assert [conventional_kind(name) for name in ("target_net", "yolact_net", "subnet", "net_loss")] == [
        Kind.MODULE, Kind.MODULE, None, None
    ]


def test_an_attribute_of_an_unknown_object_has_its_names_conventional_kind() -> None:
    seen = probe(
        """
        def step(holder, state):
            probe(holder.optimizer); probe(holder.scheduler); probe(state.device); probe(holder.config)
        """
    )
    assert seen == [(Kind.OPTIMIZER, CONVENTION), (Kind.SCHEDULER, CONVENTION), (Kind.DEVICE, CONVENTION), (None, None)]


def test_a_value_or_none_has_the_values_kind() -> None:
    seen = probe(
        """
        import torch
        def setup(use_amp):
            scaler = torch.amp.GradScaler("cuda") if use_amp else None
            spare = None if use_amp else torch.nn.Linear(2, 2)
            probe(scaler); probe(spare)
        """
    )
    assert seen == [(Kind.SCALER, STRONG), (Kind.MODULE, STRONG)]


def test_uses_show_a_tensor_or_a_module_unless_a_plain_class_of_the_file_answers_them() -> None:
    seen = probe(
        """
        import torch

        class Ensemble:
            def parameters(self):
                return []

        def shift(ids, offsets, scores, trunk, ensemble):
            probe(ids)
            probe(offsets)
            probe(scores)
            probe(trunk)
            probe(ensemble)
            ids.unsqueeze(0)
            torch.min(offsets, dim=1)
            torch.cat(scores)
            trunk.named_parameters()
            ensemble.parameters()
        """
    )
    assert seen == [
        Inferred(Kind.TENSOR, Evidence.USAGE),  # a method only tensors have
        Inferred(Kind.TENSOR, Evidence.USAGE),  # a torch function that takes only a tensor there
        UNKNOWN,  # torch.cat takes a list of tensors
        Inferred(Kind.MODULE, Evidence.USAGE),
        UNKNOWN,  # `parameters()` is also a method of the file's plain class
    ]


def test_a_size_along_a_dimension_or_a_moved_multi_indexed_value_shows_a_tensor() -> None:
    seen = probe(
        """
        import torch

        def fit(views, pairs, buffer, table, frame, device):
            probe(views)
            probe(pairs)
            probe(buffer)
            probe(table)
            probe(frame)
            n = views.size(0)
            pairs.to(device)
            first = pairs[idx, :]
            k = buffer.size()
            rows = table[idx, :]
            frame.to(device)
        """
    )
    assert seen == [
        Inferred(Kind.TENSOR, Evidence.USAGE),  # `size(0)`: a NumPy array's `size` is a number
        Inferred(Kind.TENSOR, Evidence.USAGE),  # moved and indexed by two axes: no module is both
        UNKNOWN,  # a buffer's own `size()` takes no dimension
        UNKNOWN,  # indexed by two axes only: a NumPy array as well
        UNKNOWN,  # moved only: a module moves in place
    ]
