"""Summaries record which modules a function shards, so a helper of this file, an imported one
or a method of ``self`` that calls ``fully_shard`` (or wraps in FSDP1) counts as sharding what
its caller passes."""

from __future__ import annotations

from tests.lint.test_summaries import summaries
from torchcheck.lint.idioms import Effect


def sharded(source: str, function: str, effect: Effect = Effect.FULLY_SHARD) -> set[str]:
    return {found.target for found in summaries(source)[function].effects if found.action == effect}


def test_a_helper_shards_its_argument_its_parts_and_lists_of_them() -> None:
    source = """
        from torch.distributed.fsdp import fully_shard

        def prepare(model, mesh):
            for block in model.blocks:
                fully_shard(block, mesh=mesh)
            for i, layer in enumerate(model.layers.values()):
                fully_shard(layer)
            fully_shard([model.norm, model.output])
            fully_shard(model, mesh=mesh)
        """
    assert sharded(source, "prepare") == {"model.blocks", "model.layers", "model.norm", "model.output", "model"}


def test_a_method_shards_an_attribute_of_self_and_a_caller_inherits_it() -> None:
    source = """
        from torch.distributed.fsdp import fully_shard

        def shard(net):
            fully_shard(net)

        class Recipe:
            def __init__(self, model):
                self.model = model
                shard(self.model)
        """
    assert sharded(source, "Recipe.__init__") == {"self.model"}


def test_fsdp1_flattens_unless_it_keeps_the_original_parameters() -> None:
    source = """
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

        def wrap(model):
            return FSDP(model)

        def wrap_keeping(model):
            return FSDP(model, use_orig_params=True)
        """
    assert sharded(source, "wrap", Effect.FSDP_WRAP) == {"model"}
    assert sharded(source, "wrap_keeping", Effect.FSDP_WRAP) == set()
    assert sharded(source, "wrap") == set()
