import time

import torch
from torch import nn
from tqdm import tqdm


class Policy(nn.Module):
    def __init__(self, state_dim, n_actions, n_hid=128):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(state_dim, n_hid), nn.LeakyReLU(), nn.Linear(n_hid, n_actions))

    def forward(self, states):
        return self.model(states)


class GFlowNetAgent:
    def __init__(self, state_dim=16, n_actions=8, lr=1e-4, lr_z=1e-2, ema_alpha=0.5, early_stopping=1e-2,
                 n_train_steps=5000, batch_size=32, traj_len=6, clip_grad_norm=1.0, device="cpu"):
        self.device = torch.device(device)
        self.forward_policy = Policy(state_dim, n_actions).to(self.device)
        self.backward_policy = Policy(state_dim, n_actions).to(self.device)
        self.logZ = nn.Parameter(torch.zeros(16, device=self.device))
        self.opt = torch.optim.Adam(
            [
                {"params": list(self.forward_policy.parameters()) + list(self.backward_policy.parameters()), "lr": lr},
                {"params": [self.logZ], "lr": lr_z},
            ]
        )
        self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.opt, step_size=1000, gamma=0.5)
        self.ema_alpha = ema_alpha
        self.early_stopping = early_stopping
        self.n_train_steps = n_train_steps
        self.batch_size = batch_size
        self.traj_len = traj_len
        self.state_dim = state_dim
        self.n_actions = n_actions
        self.clip_grad_norm = clip_grad_norm

    def parameters(self):
        return list(self.forward_policy.parameters()) + list(self.backward_policy.parameters()) + [self.logZ]

    def sample_batch(self):
        states = torch.rand(self.batch_size, self.traj_len, self.state_dim, device=self.device)
        actions = torch.randint(0, self.n_actions, (self.batch_size, self.traj_len), device=self.device)
        rewards = torch.rand(self.batch_size, device=self.device) + 1e-3
        return states, actions, rewards

    def trajectorybalance_loss(self, batch):
        states, actions, rewards = batch
        logprobs_f = torch.log_softmax(self.forward_policy(states), dim=-1).gather(-1, actions[..., None]).squeeze(-1)
        logprobs_b = torch.log_softmax(self.backward_policy(states), dim=-1).gather(-1, actions[..., None]).squeeze(-1)
        loss = (self.logZ.sum() + logprobs_f.sum(1) - logprobs_b.sum(1) - torch.log(rewards)).pow(2).mean()
        return (loss, loss, loss), rewards

    def train(self):
        all_losses = []
        loss_term_ema = None
        loss_flow_ema = None
        pbar = tqdm(range(1, self.n_train_steps + 1))
        for it in pbar:
            t0_iter = time.time()
            batch = self.sample_batch()
            losses, rewards = self.trajectorybalance_loss(batch)
            if not all(torch.isfinite(loss) for loss in losses):
                continue
            losses[0].backward()
            if self.clip_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.parameters(), self.clip_grad_norm)
            self.opt.step()
            self.lr_scheduler.step()
            self.opt.zero_grad()
            all_losses.append([i.item() for i in losses])

            # Moving average of the loss for early stopping
            if loss_term_ema and loss_flow_ema:
                loss_term_ema = self.ema_alpha * losses[1] + (1.0 - self.ema_alpha) * loss_term_ema  # expect: TCK101
                loss_flow_ema = self.ema_alpha * losses[2] + (1.0 - self.ema_alpha) * loss_flow_ema  # expect: TCK101
                if loss_term_ema < self.early_stopping and loss_flow_ema < self.early_stopping:
                    break
            else:
                loss_term_ema = losses[1]
                loss_flow_ema = losses[2]
            pbar.set_postfix(loss=all_losses[-1][0], iter_time=time.time() - t0_iter)


if __name__ == "__main__":
    GFlowNetAgent().train()
