import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

from olmo import Olmo


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())

    model = Olmo()
    fsdp_model = FSDP(
        model,
        device_id=torch.cuda.current_device(),
        param_init_fn=lambda module: module.to_empty(device=torch.cuda.current_device(), recurse=False),
    )
    fsdp_model.module.reset_parameters()
    optimizer = torch.optim.AdamW(fsdp_model.parameters(), lr=1e-4)

    for step in range(10):
        batch = torch.randint(0, 50304, (2, 128), device="cuda")
        logits = fsdp_model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if dist.get_rank() == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
