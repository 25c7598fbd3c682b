"""Zero-code model tests: ``[tool.torchcheck.models]`` in pyproject.toml becomes pytest items.

Each project here has a model module and a pyproject.toml with the table, and no test file.
The checks are narrowed to cheap ones; tests/checks/test_check_model.py runs the battery.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from torchcheck import config as lint_config

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # read when transformers is imported: never the network

try:  # imported here, once: pytester's in-process runs drop what they import first
    import transformers
except ImportError:
    transformers = None

MODELS_MODULE = """
import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(8, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(torch.relu(self.hidden(x)))


class ForgottenHead(TinyNet):
    # a planted bug: a head that forward never uses, so it never gets a gradient
    def __init__(self):
        super().__init__()
        self.aux_head = nn.Linear(16, 3)


def square_loss(outputs, batch):
    return outputs.pow(2).mean()


def make_head_only_optimizer(model):
    # a planted bug: the optimizer leaves out the hidden layer
    return torch.optim.SGD(model.head.parameters(), lr=0.1)


def one_sample(device):
    return torch.randn(1, 8, device=device)


def make_broken():
    return build_with_width(-1)


def build_with_width(width):
    return nn.Linear(width, 2)
"""

TINY_TABLE = """
[tool.torchcheck.models.tiny]
factory = "zc_models:TinyNet"
inputs = [[4, 8]]
loss = "zc_models:square_loss"
optimizer = "torch.optim.SGD"
optimizer_args = { lr = 0.1 }
checks = ["forward", "gradients_flow", "batch_independent", "checkpoint_roundtrip", "optimizer_covers", "resume_equivalent"]
"""


def _project(pytester: pytest.Pytester, table: str) -> None:
    pytester.makepyfile(zc_models=MODELS_MODULE)
    (pytester.path / "pyproject.toml").write_text(textwrap.dedent(table))


def _collected_ids(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:randomly", *args)
    return [line for line in result.stdout.lines if "::" in line]


def test_each_applicable_check_becomes_an_item_named_after_model_check_and_device(
    pytester: pytest.Pytester, cpu_only_machine: None
) -> None:
    _project(pytester, TINY_TABLE)
    assert _collected_ids(pytester) == [
        "pyproject.toml::tiny::forward[cpu]",
        "pyproject.toml::tiny::gradients_flow[cpu]",
        "pyproject.toml::tiny::batch_independent[cpu]",
        "pyproject.toml::tiny::checkpoint_roundtrip",
        "pyproject.toml::tiny::optimizer_covers",
        "pyproject.toml::tiny::resume_equivalent[cpu]",
    ]


def test_a_correct_model_passes_every_item(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(pytester, TINY_TABLE)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=6)


def test_planted_bugs_fail_their_items_with_the_cause(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(
        pytester,
        """
        [tool.torchcheck.models.buggy]
        factory = "zc_models:ForgottenHead"
        inputs = [[4, 8]]
        loss = "zc_models:square_loss"
        optimizer = "zc_models:make_head_only_optimizer"
        checks = ["forward", "gradients_flow", "optimizer_covers"]
        """,
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ buggy::gradients_flow[[]cpu[]] _*",
            "assert_gradients_flow: 2 of 6 parameters *ForgottenHead*",
            "*aux_head.weight*",
            "*_ buggy::optimizer_covers _*",
            "assert_optimizer_covers: SGD does not cover *ForgottenHead*",
            "*in no param group*'hidden.weight', 'hidden.bias'*",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED pyproject.toml::buggy::gradients_flow[[]cpu[]] - assert_gradients_flow: 2*"])


def test_nothing_is_generated_where_the_plugin_is_off_or_the_items_are_turned_off(pytester: pytest.Pytester) -> None:
    _project(pytester, TINY_TABLE)
    assert _collected_ids(pytester, "--no-torchcheck-models") == []
    (pytester.path / "tox.ini").unlink()  # a repository that has not turned the plugin on
    assert _collected_ids(pytester) == []
    assert "pyproject.toml::tiny::forward[cpu]" in _collected_ids(pytester, "--torchcheck-models")  # turns it on


def test_items_join_a_run_with_path_arguments_only_when_asked(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(pytester, TINY_TABLE)
    pytester.mkdir("tests")
    pytester.makepyfile(**{"tests/test_plain": "def test_plain():\n    pass\n"})
    assert _collected_ids(pytester, "tests") == ["tests/test_plain.py::test_plain"]
    forced = _collected_ids(pytester, "tests", "--torchcheck-models")
    assert "pyproject.toml::tiny::forward[cpu]" in forced and "tests/test_plain.py::test_plain" in forced
    assert "pyproject.toml::tiny::forward[cpu]" in _collected_ids(pytester, "pyproject.toml")


def test_testpaths_runs_add_the_rootdirs_pyproject(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(pytester, TINY_TABLE)
    pytester.makeini("[pytest]\ntorchcheck = true\ntestpaths = tests\n")
    pytester.mkdir("tests")
    pytester.makepyfile(**{"tests/test_plain": "def test_plain():\n    pass\n"})
    ids = _collected_ids(pytester)
    assert "tests/test_plain.py::test_plain" in ids
    assert "pyproject.toml::tiny::optimizer_covers" in ids


def test_items_are_selected_by_marker_keyword_and_node_id(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(pytester, TINY_TABLE + TINY_TABLE.replace("models.tiny]", "models.other]"))
    assert _collected_ids(pytester, "-k", "tiny and grad") == ["pyproject.toml::tiny::gradients_flow[cpu]"]
    by_marker = _collected_ids(pytester, "-m", "torchcheck_model and cpu", "-k", "other")
    assert len(by_marker) == 6
    assert _collected_ids(pytester, "pyproject.toml::other::optimizer_covers") == ["pyproject.toml::other::optimizer_covers"]


def test_declared_and_found_non_applicability_skip_with_the_reason(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(
        pytester,
        """
        [tool.torchcheck.models.single]
        factory = "zc_models:TinyNet"
        inputs = "zc_models:one_sample"
        checks = ["forward", "batch_independent", "checkpoint_roundtrip", "gradients_flow"]
        not_applicable = { checkpoint_roundtrip = "weights come from a hub checkpoint" }
        xfail = { forward = "known: returns a tuple in v2" }
        """,
    )
    result = pytester.runpytest("-p", "no:randomly", "-rsxX")
    result.assert_outcomes(passed=1, skipped=2, failed=1)
    result.stdout.fnmatch_lines_random(
        [
            "SKIPPED [[]1[]] pyproject.toml*: weights come from a hub checkpoint",
            "SKIPPED [[]1[]] pyproject.toml:2: batch_independent: the batch has 1 sample; needs at least 2",
            "[[]XPASS(strict)[]] known: returns a tuple in v2",
        ]
    )


def test_a_device_the_machine_lacks_is_generated_once_and_skipped(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(pytester, TINY_TABLE.replace('checks = [', 'devices = ["cuda"]\nchecks = ['))
    result = pytester.runpytest("-p", "no:randomly", "-rs", "-k", "forward")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs cuda, which is not available*"])


def test_a_bad_table_is_a_collection_error_naming_the_table_and_key(pytester: pytest.Pytester) -> None:
    _project(pytester, TINY_TABLE.replace("loss =", "loss_fn ="))
    result = pytester.runpytest("-p", "no:randomly")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*pyproject.toml: [[]tool.torchcheck.models.tiny[]]: unknown key 'loss_fn' (known keys: factory, *"])
    assert "Traceback" not in result.stdout.str() and "_model_config.py" not in result.stdout.str()


def test_an_unknown_check_is_a_collection_error(pytester: pytest.Pytester) -> None:
    _project(pytester, TINY_TABLE.replace('"forward",', '"forwards",'))
    result = pytester.runpytest("-p", "no:randomly")
    result.stdout.fnmatch_lines(["*[[]tool.torchcheck.models.tiny[]] checks: unknown check 'forwards' (checks: forward, *"])


def test_an_import_path_that_does_not_import_fails_its_items_with_the_import_error(
    pytester: pytest.Pytester, cpu_only_machine: None
) -> None:
    _project(pytester, TINY_TABLE.replace("zc_models:TinyNet", "zc_missing:TinyNet"))
    result = pytester.runpytest("-p", "no:randomly", "-k", "forward or covers")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "[[]tool.torchcheck.models.tiny[]]: factory = 'zc_missing:TinyNet': cannot import zc_missing: "
            "ModuleNotFoundError: No module named 'zc_missing'",
        ]
    )
    assert "torchcheck/" not in result.stdout.str()


def test_a_factory_that_raises_shows_its_own_frames(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(pytester, TINY_TABLE.replace("zc_models:TinyNet", "zc_models:make_broken"))
    result = pytester.runpytest("-p", "no:randomly", "-k", "forward")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "[[]tool.torchcheck.models.tiny[]]: factory = 'zc_models:make_broken' raised RuntimeError: *negative dimension*",
            "*zc_models.py*in make_broken",
            "*zc_models.py*in build_with_width",
        ]
    )
    assert "src/torchcheck" not in result.stdout.str()


def test_explain_says_what_was_generated_and_why_not_the_rest(pytester: pytest.Pytester, cpu_only_machine: None) -> None:
    _project(
        pytester,
        """
        [tool.torchcheck.models.bare]
        factory = "zc_models:TinyNet"
        inputs = [[1, 8]]
        checks = ["default"]
        """,
    )
    result = pytester.runpytest("--collect-only", "--torchcheck-models-explain", "-p", "no:randomly")
    result.stdout.fnmatch_lines(
        [
            "torchcheck models (*pyproject.toml):",
            "  bare: forward[[]cpu[]], inference_contract[[]cpu[]], gradients_flow[[]cpu[]], reproducible[[]cpu[]], "
            "checkpoint_roundtrip, meta_shapes",
            "    not generated: batch_independent: the batch has 1 sample; needs at least 2",
            "    not generated: optimizer_covers: no optimizer",
            "    not generated: resume_equivalent: no step, and no loss + optimizer",
            "    not generated: amp_step: no loss + optimizer",
            "    not generated: devices_agree: needs a non-cpu device (this run: cpu)",
        ]
    )


TINY_GPT2_CONFIG = {
    "model_type": "gpt2", "vocab_size": 64, "n_positions": 32, "n_embd": 16, "n_layer": 1, "n_head": 2,
    "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "bos_token_id": 0, "eos_token_id": 0,
}
LLAMA_7B_SIZED_CONFIG = {
    "model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32, "max_position_embeddings": 64,
}


def test_transformers_models_from_config_files_run_without_the_network(
    pytester: pytest.Pytester, cpu_only_machine: None
) -> None:
    if transformers is None:
        pytest.skip("transformers is not installed")
    (pytester.path / "tiny_gpt2.json").write_text(json.dumps(TINY_GPT2_CONFIG))
    (pytester.path / "llama.json").write_text(json.dumps(LLAMA_7B_SIZED_CONFIG))
    (pytester.path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.torchcheck.models.tiny_gpt2]
            hf = { config_file = "tiny_gpt2.json", task = "causal-lm" }
            optimizer = "torch.optim.SGD"
            optimizer_args = { lr = 0.01 }
            checks = ["forward", "gradients_flow", "meta_shapes", "optimizer_covers"]

            [tool.torchcheck.models.shrunk_llama]
            hf = { config_file = "llama.json", task = "causal-lm", shrink = true }
            inputs = { input_ids = "int64[2,8] < vocab", attention_mask = "mask[2,8]" }
            checks = ["forward"]

            [tool.torchcheck.models.not_on_the_hub]
            hf = "torchcheck-tests/no-such-model"
            checks = ["forward"]
            """
        )
    )
    result = pytester.runpytest("-p", "no:randomly", "-v", "-rs")
    result.assert_outcomes(passed=5, skipped=1)
    result.stdout.fnmatch_lines_random(
        [
            "pyproject.toml::tiny_gpt2::gradients_flow[[]cpu[]] PASSED*",
            "pyproject.toml::shrunk_llama::forward[[]cpu[]] PASSED*",
            "SKIPPED [[]1[]] pyproject.toml:*: cannot get the config of 'torchcheck-tests/no-such-model' (*HF_HUB_OFFLINE=1*",
        ]
    )


def test_the_linter_accepts_and_ignores_the_models_and_golden_tables(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchcheck]\nignore = ["TCK101"]\n\n[tool.torchcheck.models.tiny]\nfactory = "m:Net"\n\n'
        '[tool.torchcheck.golden.tolerance]\n"cpu-*" = { rtol = 1e-5 }\n'
    )
    assert lint_config.discover(tmp_path).ignore == ("TCK101",)
    (tmp_path / "pyproject.toml").write_text('[tool.torchcheck]\nmodel = "m:Net"\n')
    with pytest.raises(lint_config.ConfigError, match="unknown key 'model'"):
        lint_config.discover(tmp_path)


def test_the_example_project_declares_its_model_in_its_pyproject() -> None:
    root = Path(__file__).resolve().parents[2]
    example = root / "fixtures" / "example_project" / "pyproject.toml"
    assert "[tool.torchcheck.models.classifier]" in example.read_text()
    assert os.fspath(example.relative_to(root)) in (root / "pyproject.toml").read_text()
