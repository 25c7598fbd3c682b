import torch


def get_noise_noisy_latents_and_timesteps(noise_scheduler, latents):
    noise = torch.randn_like(latents)
    b = latents.shape[0]
    timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (b,), device=latents.device).long()
    noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
    return noise, noisy_latents, timesteps
