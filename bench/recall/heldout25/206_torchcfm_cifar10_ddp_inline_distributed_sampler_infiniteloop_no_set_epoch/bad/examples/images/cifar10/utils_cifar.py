import copy
import os

import torch
import torch.distributed as dist
from torchvision.utils import save_image


def setup(rank: int, total_num_gpus: int, master_addr: str = "localhost", master_port: str = "12355", backend: str = "nccl"):
    """Initialize the distributed environment."""
    os.environ["MASTER_ADDR"] = master_addr
    os.environ["MASTER_PORT"] = master_port
    dist.init_process_group(backend, rank=rank, world_size=total_num_gpus)
    torch.cuda.set_device(rank)


def generate_samples(model, parallel, savedir, step, net_="normal", num_steps=100):
    """Integrate the learned ODE from noise with Euler steps and save a grid of images."""
    model.eval()
    model_ = copy.deepcopy(model)
    if parallel:
        model_ = model_.module.to("cpu") if hasattr(model_, "module") else model_
    with torch.no_grad():
        x = torch.randn(64, 3, 32, 32, device=next(model_.parameters()).device)
        for i in range(num_steps):
            t = torch.full((x.shape[0],), i / num_steps, device=x.device)
            x = x + model_(t, x) / num_steps
    save_image(x.clip(-1, 1) / 2 + 0.5, savedir + f"{net_}_generated_FM_images_step_{step}.png", nrow=8)
    model.train()


def ema(source, target, decay):
    source_dict = source.state_dict()
    target_dict = target.state_dict()
    for key in source_dict.keys():
        target_dict[key].data.copy_(target_dict[key].data * decay + source_dict[key].data * (1 - decay))


def infiniteloop(dataloader):
    while True:
        for x, y in iter(dataloader):
            yield x
