import gymnasium as gym
import numpy as np
import torch
from torch.distributions import Categorical

from networks import Model

HYPERPARAMETERS = {
    "learning_rate": 0.05,
    "nn_layers": 2,
    "nn_start_units": 32,
    "nn_unit_decay": 1.0,
    "batch_norm": False,
    "final_layer_activation": "SOFTMAX",
    "discount_rate": 0.99,
    "episodes": 500,
}


class REINFORCEAgent:
    def __init__(self, env, hyperparameters):
        self.env = env
        self.hyperparameters = hyperparameters
        state_size = env.observation_space.shape[0]
        action_size = env.action_space.n
        self.policy = Model(state_size, action_size, hyperparameters)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=hyperparameters["learning_rate"])

    def pick_action(self, state):
        state = torch.as_tensor(state, dtype=torch.float32).unsqueeze(0)
        action_probabilities = self.policy(state)
        dist = Categorical(action_probabilities)
        action = dist.sample()
        return action.item(), dist.log_prob(action)

    def discounted_returns(self, rewards):
        gamma = self.hyperparameters["discount_rate"]
        returns, running = [], 0.0
        for r in reversed(rewards):
            running = r + gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns, dtype=torch.float32)
        return (returns - returns.mean()) / (returns.std() + 1e-8)

    def run_episode(self):
        state, _ = self.env.reset()
        log_probs, rewards, done = [], [], False
        while not done:
            action, log_prob = self.pick_action(state)
            state, reward, terminated, truncated, _ = self.env.step(action)
            log_probs.append(log_prob)
            rewards.append(reward)
            done = terminated or truncated
        returns = self.discounted_returns(rewards)
        loss = -(torch.cat(log_probs) * returns).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return float(np.sum(rewards))

    def train(self):
        scores = []
        for episode in range(self.hyperparameters["episodes"]):
            scores.append(self.run_episode())
            if episode % 50 == 0:
                print(episode, np.mean(scores[-50:]))
        return scores


if __name__ == "__main__":
    REINFORCEAgent(gym.make("CartPole-v1"), HYPERPARAMETERS).train()
