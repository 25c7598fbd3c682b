from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

from model import Transformer


def apply_fsdp(model: Transformer, dp_mesh, param_dtype, reduce_dtype):
    mp_policy = MixedPrecisionPolicy(param_dtype=param_dtype, reduce_dtype=reduce_dtype)
    fsdp_config = {"mesh": dp_mesh, "mp_policy": mp_policy}
    if model.enable_weight_tying:
        fully_shard([model.tok_embeddings, model.norm, model.output], **fsdp_config, reshard_after_forward=True)
    elif model.tok_embeddings is not None:
        fully_shard(model.tok_embeddings, **fsdp_config, reshard_after_forward=True)
    for transformer_block in model.layers.values():
        fully_shard(transformer_block, **fsdp_config, reshard_after_forward=True)
    if not model.enable_weight_tying and model.norm is not None and model.output is not None:
        fully_shard([model.norm, model.output], **fsdp_config, reshard_after_forward=False)
    fully_shard(model, **fsdp_config)
    return model
