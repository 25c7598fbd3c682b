import torch


class ScoreSdeVeScheduler:
    def __init__(self, snr=0.15, num_train_timesteps=2000):
        self.snr = snr
        self.num_train_timesteps = num_train_timesteps

    @staticmethod
    def norm(x):
        return torch.norm(x.reshape(x.shape[0], -1), dim=-1).mean()

    def step_correct(self, model_output, sample, generator=None):
        """Langevin corrector step, run repeatedly after each prediction."""
        noise = torch.randn(sample.shape, generator=generator, device=sample.device)

        # compute step size from the model_output, the noise, and the snr
        grad_norm = self.norm(model_output)
        noise_norm = self.norm(noise)
        step_size = (self.snr * noise_norm / grad_norm) ** 2 * 2
        step_size = step_size * torch.ones(sample.shape[0]).to(sample.device)  # expect: TCK201

        prev_sample_mean = sample + step_size[:, None, None, None] * model_output
        prev_sample = prev_sample_mean + ((step_size * 2) ** 0.5)[:, None, None, None] * noise
        return {"prev_sample": prev_sample}
