import torch.distributed as dist

_PIPELINE_GROUP = None
_PIPELINE_RANKS = None


def initialize_model_parallel(pipeline_model_parallel_size):
    """Consecutive ranks form one pipeline (no tensor or data parallelism in this sketch)."""
    global _PIPELINE_GROUP, _PIPELINE_RANKS
    world_size, rank = dist.get_world_size(), dist.get_rank()
    for start in range(0, world_size, pipeline_model_parallel_size):
        ranks = list(range(start, start + pipeline_model_parallel_size))
        group = dist.new_group(ranks)
        if rank in ranks:
            _PIPELINE_GROUP, _PIPELINE_RANKS = group, ranks


def get_pipeline_model_parallel_group():
    return _PIPELINE_GROUP


def _stage():
    return _PIPELINE_RANKS.index(dist.get_rank())


def is_pipeline_first_stage():
    return _stage() == 0


def is_pipeline_last_stage():
    return _stage() == len(_PIPELINE_RANKS) - 1


def get_pipeline_model_parallel_next_rank():
    return _PIPELINE_RANKS[(_stage() + 1) % len(_PIPELINE_RANKS)]


def get_pipeline_model_parallel_prev_rank():
    return _PIPELINE_RANKS[(_stage() - 1) % len(_PIPELINE_RANKS)]
