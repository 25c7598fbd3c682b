from typing import Union, cast

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class NerfModel(nn.Module):
    """Tiny radiance field: positional encoding + MLP, volume-rendered along each ray."""

    def __init__(self, num_freqs=10, hidden=256, samples_per_ray=64):
        super().__init__()
        self.num_freqs, self.samples_per_ray = num_freqs, samples_per_ray
        in_dim = 3 * (1 + 2 * num_freqs)
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 4))

    def encode(self, x):
        freqs = 2.0 ** torch.arange(self.num_freqs, device=x.device)
        xb = x[..., None] * freqs
        return torch.cat([x, torch.sin(xb).flatten(-2), torch.cos(xb).flatten(-2)], dim=-1)

    def forward(self, origins, directions):
        t = torch.linspace(0.05, 4.0, self.samples_per_ray, device=origins.device)
        pts = origins[:, None, :] + directions[:, None, :] * t[None, :, None]
        raw = self.mlp(self.encode(pts))
        density, rgb = F.relu(raw[..., 0]), torch.sigmoid(raw[..., 1:])
        alpha = 1.0 - torch.exp(-density * (t[1] - t[0]))
        trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], dim=1), dim=1)[:, :-1]
        weights = alpha * trans
        return {"rgb": (weights[..., None] * rgb).sum(dim=1)}

    def get_loss_dict(self, outputs, batch):
        return {"rgb_loss": F.mse_loss(outputs["rgb"], batch["image"])}


def module_wrapper(ddp_or_model: Union[DDP, NerfModel]) -> NerfModel:
    """If DDP, then return the .module. Otherwise, return the model."""
    if isinstance(ddp_or_model, DDP):
        return cast(NerfModel, ddp_or_model.module)
    return ddp_or_model


class VanillaPipeline(nn.Module):
    def __init__(self, datamanager, device, world_size=1, local_rank=0):
        super().__init__()
        self.datamanager = datamanager
        self._model = NerfModel()
        self.model.to(device)
        self.world_size = world_size
        if world_size > 1:
            self._model = DDP(self._model, device_ids=[local_rank], find_unused_parameters=True)
            dist.barrier(device_ids=[local_rank])

    @property
    def model(self):
        """Returns the unwrapped model if in ddp"""
        return module_wrapper(self._model)

    def get_train_loss_dict(self, step: int):
        ray_bundle, batch = self.datamanager.next_train(step)
        # train the distributed data parallel model itself when world_size > 1
        model_outputs = self._model(ray_bundle["origins"], ray_bundle["directions"])
        loss_dict = self.model.get_loss_dict(model_outputs, batch)
        return model_outputs, loss_dict

    @torch.no_grad()
    def get_eval_image_metrics(self, step: int):
        ray_bundle, batch = self.datamanager.next_eval(step)
        outputs = self.model(ray_bundle["origins"], ray_bundle["directions"])
        mse = F.mse_loss(outputs["rgb"], batch["image"])
        return {"psnr": float(-10.0 * torch.log10(mse))}
