import os

import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

from model import Transformer

MODEL_CHECKPOINT = "model_state_dict.pt"


def main(args, model_args, checkpoint_dir):
    rank = int(os.environ["LOCAL_RANK"])
    device = torch.device(f"cuda:{rank}")
    torch.cuda.set_device(device)
    torch.distributed.init_process_group(backend="nccl", device_id=device)
    with torch.device("meta"):
        model = Transformer(model_args)
    fsdp_kwargs = {}
    if args.mixed_precision:
        fsdp_kwargs["mp_policy"] = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model.layers:
        fully_shard(layer, **fsdp_kwargs)
    fully_shard(model, **fsdp_kwargs)
    checkpoint = os.path.join(checkpoint_dir, MODEL_CHECKPOINT)
    if not os.path.exists(checkpoint):
        model.to_empty(device="cuda")
        model.reset_parameters()
    else:
        model.load_state_dict(torch.load(checkpoint, mmap=True, weights_only=True, map_location="cpu"), strict=False, assign=True)
    optim = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(10):
        x = torch.randint(0, model_args.vocab_size, (32, 64), device=device)
        loss = model(x).sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optim.step()
        optim.zero_grad()
    full_sd = {k: v.full_tensor().cpu() for k, v in model.state_dict().items()}
    if torch.distributed.get_rank() == 0:
        torch.save(full_sd, checkpoint)
