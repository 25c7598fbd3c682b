import torch


class DDPMScheduler:
    def __init__(self, num_train_timesteps=1000, beta_start=1e-4, beta_end=0.02):
        self.num_train_timesteps = num_train_timesteps
        self.betas = torch.linspace(beta_start, beta_end, num_train_timesteps)
        self.alphas_cumprod = torch.cumprod(1.0 - self.betas, dim=0)

    def add_noise(self, original_samples, noise, timesteps):
        alphas_cumprod = self.alphas_cumprod.to(original_samples.device)
        sqrt_alpha_prod = alphas_cumprod[timesteps].sqrt().view(-1, 1, 1, 1)
        sqrt_one_minus_alpha_prod = (1 - alphas_cumprod[timesteps]).sqrt().view(-1, 1, 1, 1)
        return sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise
