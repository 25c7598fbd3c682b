import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from policy import Policy


class PPOTrainer:
    def __init__(self, noptepochs=2, max_grad_norm=1.0, gradient_accumulation_steps=4):
        self.accelerator = Accelerator(gradient_accumulation_steps=gradient_accumulation_steps)
        self.noptepochs = noptepochs
        self.max_grad_norm = max_grad_norm
        policy = Policy()
        optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-5)
        self.policy, self.optimizer = self.accelerator.prepare(policy, optimizer)

    def compute_loss(self, batch):
        tokens, old_logprobs, advantages = batch
        logprobs = self.policy(tokens[:, :-1]).gather(-1, tokens[:, 1:, None]).squeeze(-1)
        ratio = torch.exp(logprobs - old_logprobs)
        clipped = torch.clamp(ratio, 0.8, 1.2)
        return -torch.min(ratio * advantages, clipped * advantages).mean()

    def step_with_rollouts(self, rollouts):
        loader = DataLoader(rollouts, batch_size=8, shuffle=True, drop_last=True)
        losses = []
        for epoch_idx in range(self.noptepochs):
            for batch in loader:
                with self.accelerator.accumulate(self.policy):
                    ppo_loss = self.compute_loss([t.to(self.accelerator.device) for t in batch])
                    self.accelerator.backward(ppo_loss)
                    if self.accelerator.sync_gradients:
                        self.accelerator.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                        losses.append(ppo_loss.detach())
                    self.optimizer.step()
                    self.policy.zero_grad(set_to_none=True)  # expect: TCK111
        return torch.stack(losses).mean()


if __name__ == "__main__":
    tokens = torch.randint(0, 1000, (256, 33))
    rollouts = TensorDataset(tokens, torch.randn(256, 32) - 7.0, torch.randn(256, 32))
    trainer = PPOTrainer()
    for step in range(10):
        print(step, trainer.step_with_rollouts(rollouts).item())
