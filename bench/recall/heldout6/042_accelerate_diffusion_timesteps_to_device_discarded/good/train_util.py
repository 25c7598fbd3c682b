from resample import LossSecondMomentResampler


class TrainLoop:
    def __init__(self, model, diffusion, optimizer, accelerator, num_timesteps):
        self.model = model
        self.diffusion = diffusion
        self.optimizer = optimizer
        self.accelerator = accelerator
        self.schedule_sampler = LossSecondMomentResampler(num_timesteps)

    def run_step(self, batch):
        t, weights = self.schedule_sampler.sample(batch.shape[0])
        t = t.to(batch.device)
        weights = weights.to(batch.device)
        losses = self.diffusion.training_losses(self.model, batch, t)
        loss = (losses["loss"] * weights).mean()
        self.optimizer.zero_grad()
        self.accelerator.backward(loss)
        self.optimizer.step()
