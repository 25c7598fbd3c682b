import torch

from solver import DDIMSolver


class SimpleScheduler:
    def __init__(self, num_train_timesteps: int = 1000):
        betas = torch.linspace(1e-4, 2e-2, num_train_timesteps)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.timesteps = torch.arange(num_train_timesteps - 1, -1, -1)

    def set_timesteps(self, num_inference_steps=None, timesteps=None, device=None):
        if timesteps is not None:
            self.timesteps = torch.as_tensor(timesteps, device=device)
        else:
            step = len(self.alphas_cumprod) // num_inference_steps
            self.timesteps = torch.arange(len(self.alphas_cumprod) - 1, -1, -step, device=device)

    def step(self, noise_pred, t, latents):
        a_t = self.alphas_cumprod[t]
        x0 = (latents - (1 - a_t).sqrt() * noise_pred) / a_t.sqrt()
        return a_t.sqrt() * x0


class MultiViewPaintPipeline:
    """Multi-view texture painting; the turbo variant samples on a fixed 10-step DDIM grid."""

    def __init__(self, unet, is_turbo: bool = False, device: str = "cpu"):
        self.unet = unet
        self.is_turbo = is_turbo
        self.device = device
        self.scheduler = SimpleScheduler()
        self.solver = DDIMSolver(self.scheduler.alphas_cumprod).to(device)

    @torch.no_grad()
    def __call__(self, cond, num_inference_steps: int = 30, num_in_batch: int = 6):
        device = self.device
        if self.is_turbo:
            bsz = 3
            index = torch.arange(29, -1, -bsz, device=device).long()
            timesteps = self.solver.ddim_timesteps[index]
            self.scheduler.set_timesteps(timesteps=timesteps.cpu(), device=device)
        else:
            self.scheduler.set_timesteps(num_inference_steps, device=device)
        timesteps = self.scheduler.timesteps

        latents = torch.randn(num_in_batch, 4, 32, 32, device=device)
        for t in timesteps:
            noise_pred = self.unet(latents, t, cond)
            latents = self.scheduler.step(noise_pred, t, latents)
        return latents
