import numpy as np
import torch
import torch.nn.functional as F
from torch.optim import Adam

from model import DeterministicPolicy, QNetwork


class DDPGStyleSAC:
    def __init__(self, num_inputs, action_high, action_low, hidden_size=256, lr=3e-4, gamma=0.99, tau=0.005):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        num_actions = len(action_high)
        self.gamma = gamma
        self.tau = tau
        self.critic = QNetwork(num_inputs, num_actions, hidden_size).to(self.device)
        self.critic_target = QNetwork(num_inputs, num_actions, hidden_size).to(self.device)
        self.critic_target.load_state_dict(self.critic.state_dict())
        self.critic_optim = Adam(self.critic.parameters(), lr=lr)
        self.policy = DeterministicPolicy(num_inputs, num_actions, hidden_size, action_high, action_low).to(self.device)
        self.policy_optim = Adam(self.policy.parameters(), lr=lr)

    def select_action(self, state):
        state = torch.as_tensor(state, dtype=torch.float32, device=self.device).unsqueeze(0)
        action, _, _ = self.policy.sample(state)
        return action.detach().cpu().numpy()[0]

    def update(self, batch):
        state, action, reward, next_state, done = (
            torch.as_tensor(x, dtype=torch.float32, device=self.device) for x in batch
        )
        with torch.no_grad():
            next_action, _, _ = self.policy.sample(next_state)
            target_q = reward + (1 - done) * self.gamma * self.critic_target(next_state, next_action)
        q_loss = F.mse_loss(self.critic(state, action), target_q)
        self.critic_optim.zero_grad()
        q_loss.backward()
        self.critic_optim.step()

        new_action, _, _ = self.policy.sample(state)
        policy_loss = -self.critic(state, new_action).mean()
        self.policy_optim.zero_grad()
        policy_loss.backward()
        self.policy_optim.step()

        for t, s in zip(self.critic_target.parameters(), self.critic.parameters()):
            t.data.mul_(1 - self.tau).add_(self.tau * s.data)
        return q_loss.item(), policy_loss.item()


if __name__ == "__main__":
    agent = DDPGStyleSAC(8, np.ones(2), -np.ones(2))
    rng = np.random.default_rng(0)
    for step in range(10):
        batch = (
            rng.normal(size=(32, 8)),
            rng.uniform(-1, 1, size=(32, 2)),
            rng.normal(size=(32, 1)),
            rng.normal(size=(32, 8)),
            np.zeros((32, 1)),
        )
        print(agent.update(batch))
