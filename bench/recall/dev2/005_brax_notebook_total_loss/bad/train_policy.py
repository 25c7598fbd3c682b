import torch
from torch import nn

policy = nn.Sequential(nn.Linear(87, 256), nn.ReLU(), nn.Linear(256, 8))
optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)


def train(env, num_steps):
    total_loss = 0
    observation = env.reset()
    for i in range(num_steps):
        optimizer.zero_grad()
        action = policy(observation)
        observation, reward = env.step(action)
        loss = -reward.mean()
        loss.backward()
        optimizer.step()
        total_loss += loss  # expect: TCK101
    return total_loss / num_steps
