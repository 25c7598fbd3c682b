"""lint/distributed.py: rank checks however projects spell them, per-rank values, and the
idioms that strip DDP's ``module.`` prefix."""

from __future__ import annotations

import libcst as cst
import pytest

from torchcheck.lint.distributed import (
    is_rank_check,
    names_a_rank,
    strips_module_prefix,
)


@pytest.mark.parametrize(
    "test",
    [
        "dist.get_rank() == 0",
        "args.rank % ngpus_per_node == 0",
        "not args.multiprocessing_distributed or (args.multiprocessing_distributed and args.rank % ngpus_per_node == 0)",
        "utils.is_main_process()",
        "local_rank in [-1, 0]",
        "self.global_rank == 0",
        "accelerator.is_main_process",
        "trainer.is_global_zero",
        "master_process",
        'int(os.environ["RANK"]) == 0',
        "self.args.should_save",
        "self.is_world_process_zero()",
    ],
)
def test_a_condition_reading_a_rank_or_main_process_flag_is_a_rank_check(test: str) -> None:
    assert is_rank_check(cst.parse_expression(test))


@pytest.mark.parametrize("test", ["epoch % 10 == 0", "args.save_model", "best_acc > acc", "os.path.exists(path)"])
def test_a_condition_about_anything_else_is_not_a_rank_check(test: str) -> None:
    assert not is_rank_check(cst.parse_expression(test))


def test_a_path_built_from_the_rank_is_one_per_process() -> None:
    assert names_a_rank(cst.parse_expression('f"{out}/optim_rank{dist.get_rank()}.pt"'))
    assert names_a_rank(cst.parse_expression('os.path.join(out, f"rng_state_{self.args.process_index}.pth")'))
    assert not names_a_rank(cst.parse_expression('os.path.join(out, "checkpoint_rank.pt")'))


@pytest.mark.parametrize(
    "code",
    [
        'state = {k.replace("module.", ""): v for k, v in state.items()}',
        "state = {k[7:]: v for k, v in state.items()}",
        'consume_prefix_in_state_dict_if_present(state, "module.")',
        'state = {k.removeprefix("module."): v for k, v in state.items()}',
    ],
)
def test_the_usual_ways_of_stripping_the_module_prefix_are_recognised(code: str) -> None:
    assert strips_module_prefix(cst.parse_module(code))


def test_slicing_or_strings_unrelated_to_the_prefix_are_not_stripping() -> None:
    assert not strips_module_prefix(cst.parse_module('name = key[1:]\nlabel = "modules"\nstate = k[7:12]\n'))
