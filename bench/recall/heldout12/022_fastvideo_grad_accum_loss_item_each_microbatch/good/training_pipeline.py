import torch
import torch.distributed as dist
import torch.nn.functional as F

from training_batch import TrainingBatch


class TrainingPipeline:
    def __init__(self, transformer, optimizer, lr_scheduler, dataloader, device,
                 gradient_accumulation_steps=4, max_grad_norm=1.0, log_every=10):
        self.transformer = transformer
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.dataloader = dataloader
        self.train_iter = iter(dataloader)
        self.device = device
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.max_grad_norm = max_grad_norm
        self.log_every = log_every

    def _get_next_batch(self, training_batch):
        try:
            batch = next(self.train_iter)
        except StopIteration:
            self.train_iter = iter(self.dataloader)
            batch = next(self.train_iter)
        training_batch.latents = batch["latents"].to(self.device, non_blocking=True)
        training_batch.encoder_hidden_states = batch["text_embeds"].to(self.device, non_blocking=True)
        training_batch.encoder_attention_mask = batch["text_mask"].to(self.device, non_blocking=True)
        return training_batch

    def _flow_matching_loss(self, training_batch):
        latents = training_batch.latents
        noise = torch.randn_like(latents)
        t = torch.rand(latents.shape[0], device=latents.device)
        sigma = t.view(-1, *([1] * (latents.dim() - 1)))
        noisy = (1 - sigma) * latents + sigma * noise
        pred = self.transformer(noisy, training_batch.encoder_hidden_states,
                                training_batch.encoder_attention_mask, t)
        return F.mse_loss(pred.float(), (noise - latents).float())

    def train_one_step(self, training_batch):
        self.transformer.train()
        self.optimizer.zero_grad(set_to_none=True)
        training_batch.total_loss = torch.zeros((), device=self.device)
        for _ in range(self.gradient_accumulation_steps):
            training_batch = self._get_next_batch(training_batch)
            loss = self._flow_matching_loss(training_batch) / self.gradient_accumulation_steps
            loss.backward()
            avg_loss = loss.detach().clone()
            if dist.is_initialized():
                dist.all_reduce(avg_loss, op=dist.ReduceOp.AVG)
            training_batch.total_loss += avg_loss  # stays on the GPU; read only when logging
        grad_norm = torch.nn.utils.clip_grad_norm_(self.transformer.parameters(), self.max_grad_norm)
        self.optimizer.step()
        self.lr_scheduler.step()
        training_batch.grad_norm = grad_norm
        return training_batch

    def train(self, max_train_steps):
        for step in range(1, max_train_steps + 1):
            training_batch = self.train_one_step(TrainingBatch())
            if step % self.log_every == 0:
                print(f"step {step}: loss {training_batch.total_loss.item():.4f} "
                      f"grad_norm {float(training_batch.grad_norm):.3f}")
