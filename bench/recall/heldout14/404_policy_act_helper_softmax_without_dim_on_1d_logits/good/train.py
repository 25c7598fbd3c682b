import random

from agent import ReinforceAgent


class ToyBandit:
    """Four-armed bandit with a noisy observation; one step per episode segment."""

    def __init__(self, obs_dim=4):
        self.obs_dim = obs_dim
        self.t = 0

    def reset(self):
        self.t = 0
        return [random.gauss(0, 1) for _ in range(self.obs_dim)]

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 2 else 0.0
        obs = [random.gauss(0, 1) for _ in range(self.obs_dim)]
        return obs, reward, self.t >= 20


def main():
    env = ToyBandit()
    agent = ReinforceAgent(obs_dim=4, n_actions=4)
    for episode in range(200):
        obs, done = env.reset(), False
        while not done:
            action = agent.act(obs)
            obs, reward, done = env.step(action)
            agent.rewards.append(reward)
        loss = agent.finish_episode()
        if episode % 20 == 0:
            print(episode, loss)


if __name__ == "__main__":
    main()
