import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def transform_models_if_DDP(models):
    # Transform text_encoder, unet and network from DistributedDataParallel
    return [model.module if type(model) == DDP else model for model in models if model is not None]


def get_noise_noisy_latents_and_timesteps(noise_scheduler, latents):
    noise = torch.randn_like(latents)
    b = latents.shape[0]
    timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (b,), device=latents.device).long()
    noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
    return noise, noisy_latents, timesteps
