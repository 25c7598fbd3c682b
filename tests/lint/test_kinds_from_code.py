"""Kinds the code shows beat kinds a name suggests: functions of the file, model factories,
submodule loops, and batches drawn from a dataloader."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst

from tests.lint.test_context_evidence import probe
from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.context import LintContext, is_model_factory
from torchcheck.lint.kinds import UNKNOWN, Evidence, Kind
from torchcheck.lint.walker import BatchedWalker

STRONG, CONVENTION = Evidence.STRONG, Evidence.CONVENTION


class _BatchProbe:
    """Records, for every `probe(name)` call, whether the context takes the name for a batch."""

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.seen: list[bool] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.seen.append(self.context.is_loader_batch(node.args[0].value))


def batches(source: str) -> list[bool]:
    context = LintContext()
    recorder = _BatchProbe(context)
    BatchedWalker([context, recorder]).walk(cst.parse_module(textwrap.dedent(source)))
    return recorder.seen


def test_a_function_of_the_file_that_returns_a_module_makes_its_call_a_module_whatever_the_names() -> None:
    seen = probe(
        """
        import torch.nn as nn
        def load(state_dict, device):
            clip = build_model(state_dict).to(device)
            probe(clip); probe(build_model(state_dict))
        class CLIP(nn.Module):
            pass
        def build_model(state_dict):
            model = CLIP()
            model.load_state_dict(state_dict)
            return model.eval()
        """
    )
    assert seen == [(Kind.MODULE, STRONG), (Kind.MODULE, STRONG)]


def test_a_function_of_the_file_with_an_unknown_result_returns_no_kind_even_with_a_model_like_name() -> None:
    seen = probe(
        """
        def run(config):
            out = get_model(config)(inputs)
            probe(get_model(config)); probe(out)
        def get_model(config):
            return registry[config.name]
        """
    )
    assert seen == [UNKNOWN, UNKNOWN]


def test_a_function_imported_from_the_project_is_not_a_module_by_its_name() -> None:
    seen = probe(
        """
        from .model import build_model
        from . import base_model
        probe(build_model); probe(build_model(sd)); probe(base_model(x))
        """
    )
    assert seen == [UNKNOWN, UNKNOWN, UNKNOWN]


def test_a_name_that_starts_with_a_verb_names_a_factory_not_the_value_it_makes() -> None:
    seen = probe("probe(create_model(cfg)); probe(get_loader); probe(train_loader); probe(base_model(x))")
    assert seen == [UNKNOWN, UNKNOWN, (Kind.DATALOADER, CONVENTION), (Kind.GRAPH_TENSOR, CONVENTION)]


def test_an_unknown_third_party_call_yields_only_what_the_name_it_is_bound_to_suggests() -> None:
    seen = probe(
        """
        import cv2
        import somelib
        net = cv2.dnn.readNetFromONNX(path)
        model = somelib.load(path)
        output = somelib.run(model)
        probe(net); probe(model); probe(output)
        """
    )
    assert seen == [(Kind.OTHER, STRONG), (Kind.MODULE, CONVENTION), UNKNOWN]


def test_model_factories_of_timm_torchvision_and_hugging_face_build_modules() -> None:
    seen = probe(
        """
        import timm
        import torchvision
        from transformers import AutoModelForCausalLM, AutoTokenizer, AutoConfig
        from diffusers import UNet2DConditionModel, DDPMScheduler
        probe(timm.create_model("resnet50"))
        probe(torchvision.models.resnet50(weights=None))
        probe(torchvision.models.detection.fasterrcnn_resnet50_fpn())
        probe(AutoModelForCausalLM.from_pretrained("gpt2"))
        probe(UNet2DConditionModel.from_config(config))
        probe(AutoTokenizer.from_pretrained("gpt2"))
        probe(AutoConfig.from_pretrained("gpt2"))
        probe(DDPMScheduler.from_pretrained(path))
        probe(torchvision.models.get_weight("ResNet50_Weights.DEFAULT"))
        """
    )
    assert seen == [(Kind.MODULE, STRONG)] * 5 + [UNKNOWN] * 4


def test_model_factory_names_exclude_weight_helpers_and_non_model_classes() -> None:
    assert is_model_factory("torchvision.models.resnet.resnet50")
    assert is_model_factory("transformers.BertForMaskedLM.from_pretrained")
    assert not is_model_factory("torchvision.models.utils.load_state_dict_from_url")
    assert not is_model_factory("transformers.BertTokenizerFast.from_pretrained")
    assert not is_model_factory("transformers.AutoImageProcessor.from_pretrained")


def test_model_zoos_build_models_with_their_public_functions() -> None:
    assert is_model_factory("pretrainedmodels.resnet18")
    assert is_model_factory("pretrainedmodels.se_resnext50_32x4d")
    assert is_model_factory("efficientnet_pytorch.EfficientNet.from_pretrained")
    assert not is_model_factory("pretrainedmodels.utils")
    assert not is_model_factory("pretrainedmodels.utils.TransformImage")
    assert not is_model_factory("pretrainedmodels.pretrained_settings")
    assert not is_model_factory("pretrainedmodels.FBResNet")


def test_loops_over_a_modules_submodules_bind_modules() -> None:
    seen = probe(
        """
        import torch.nn as nn
        net = nn.Sequential(nn.Linear(2, 2))
        for m in net.modules():
            probe(m)
        for name, child in net.named_children():
            probe(name); probe(child)
        for m in encoder.modules():
            probe(m)
        """
    )
    assert seen == [(Kind.MODULE, STRONG), (Kind.OTHER, STRONG), (Kind.MODULE, STRONG), (Kind.MODULE, CONVENTION)]


def test_a_whole_item_drawn_from_a_dataloader_is_a_batch_through_enumerate_tqdm_zip_iter_and_next() -> None:
    seen = batches(
        """
        from tqdm.auto import tqdm
        for step, batch in enumerate(train_dataloader):
            probe(batch)
        for batch in tqdm(eval_loader):
            probe(batch)
        for source, target in zip(source_loader, target_loader):
            probe(source); probe(target)
        first = next(iter(train_dataloader))
        batches = iter(eval_loader)
        second = next(batches)
        probe(first); probe(second)
        """
    )
    assert seen == [True] * 6


def test_an_unpacked_item_of_a_dataloader_is_a_tensor_and_not_a_batch() -> None:
    source = """
        for step, (images, labels) in enumerate(train_loader):
            probe(images)
        for batch in items:
            probe(batch)
        """
    assert batches(source) == [False, False]
    assert probe(source) == [(Kind.TENSOR, CONVENTION), UNKNOWN]


def test_an_isinstance_check_narrows_a_batch_to_a_plain_tensor() -> None:
    seen = batches(
        """
        import torch
        for batch in train_loader:
            if isinstance(batch, torch.Tensor):
                probe(batch)
            probe(batch)
        """
    )
    assert seen == [False, True]


def test_a_value_used_as_only_a_module_is_used_is_a_module_by_its_usage() -> None:
    seen = probe(
        """
        def train(parts, trainer, loader):
            backbone, head = parts
            for p in backbone.parameters():
                p.requires_grad = False
            head.train()
            for x in loader:
                head(backbone(x)).sum().backward()
            trainer.train()
            probe(backbone); probe(head); probe(trainer)
        """
    )
    assert seen == [(Kind.MODULE, Evidence.USAGE), (Kind.MODULE, Evidence.USAGE), UNKNOWN]



def test_usage_leaves_a_value_made_by_a_project_call_to_the_project(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("import torch.nn as nn\n\nclass QNetwork(nn.Module):\n    pass\n")
    (tmp_path / "learn.py").write_text(
        "from model import QNetwork\n\nonline = QNetwork().to(device)\noptimizer = make_optimizer(online.parameters())\n"
        "values = online.forward(states)\n"
    )
    result = lint(LintOptions(paths=(tmp_path,), select=("TCK105",), use_cache=False))
    # the project shows QNetwork is a module: strong evidence, a safe fix (usage alone would make it unsafe)
    assert [(d.location.row, d.fix.applicability) for d in result.diagnostics] == [(5, "safe")]


def test_a_copy_is_of_the_kind_of_what_it_copies_and_a_tensor_method_as_a_torch_function_makes_a_tensor() -> None:
    seen = probe(
        """
        import copy
        import torch
        def fit(model, labels):
            best_model = copy.deepcopy(model.state_dict())
            twin = copy.deepcopy(model)
            counts = torch.bincount(labels)
            top = torch.topk(counts, 2)
            probe(best_model); probe(twin); probe(counts); probe(top)
        """
    )
    assert seen[0] == (Kind.OTHER, STRONG)
    assert seen[1] == (Kind.MODULE, CONVENTION)  # the parameter's own evidence, kept by the copy
    assert seen[2] == (Kind.TENSOR, STRONG)
    assert seen[3].kind is not Kind.TENSOR  # a (values, indices) tuple


def test_a_name_bound_once_to_a_torch_function_is_that_function_and_one_bound_per_branch_is_not() -> None:
    seen = probe(
        """
        import torch
        from torch import nn
        ensure_tensor = torch.tensor
        if hasattr(nn.utils, "parametrizations"):
            norm = nn.utils.parametrizations.weight_norm
        else:
            norm = nn.utils.weight_norm
        def weights(values):
            probe(ensure_tensor(values)); probe(norm(nn.Linear(2, 2)))
        """
    )
    assert seen[0] == (Kind.TENSOR, STRONG)
    assert seen[1] != (Kind.TENSOR, STRONG)
