from torch.distributed.fsdp import fully_shard


def apply_fsdp(model, dp_mesh, mp_policy):
    fsdp_config = {"mesh": dp_mesh, "mp_policy": mp_policy}
    weights_tied = model.lm_head is not None and model.lm_head.weight is model.tok_embeddings.weight
    if weights_tied:
        fully_shard([model.tok_embeddings, model.norm, model.lm_head], **fsdp_config, reshard_after_forward=True)
    elif model.tok_embeddings is not None:
        fully_shard(model.tok_embeddings, **fsdp_config, reshard_after_forward=True)
    for block in model.layers:
        fully_shard(block, **fsdp_config, reshard_after_forward=True)
    if not weights_tied and model.norm is not None and model.lm_head is not None:
        fully_shard([model.norm, model.lm_head], **fsdp_config, reshard_after_forward=False)
    fully_shard(model, **fsdp_config)
