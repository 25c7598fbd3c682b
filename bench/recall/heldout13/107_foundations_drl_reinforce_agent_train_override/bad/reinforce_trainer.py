import gymnasium as gym
import torch

from reinforce_agent import DiscreteReinforceAgent


class ReinforceTrainer:
    def __init__(self, env_name="CartPole-v1", gamma=0.99):
        self.env = gym.make(env_name)
        self.gamma = gamma
        self.agent = DiscreteReinforceAgent(
            obs_dim=self.env.observation_space.shape[0], act_dim=self.env.action_space.n
        )

    def play_episode(self):
        obs, _ = self.env.reset()
        self.agent.episode_reset()
        done, total = False, 0.0
        while not done:
            action = self.agent.act(obs)
            obs, reward, terminated, truncated, _ = self.env.step(action)
            self.agent.store_step(reward)
            total += reward
            done = terminated or truncated
        return total

    def train(self, n_episodes=500):
        for episode in range(n_episodes):
            total = self.play_episode()
            loss = self.agent.train(gamma=self.gamma)
            if episode % 20 == 0:
                print(f"episode {episode} return {total:.1f} loss {loss:.3f}")

    def evaluate(self, n_episodes=10):
        self.agent.eval()
        with torch.no_grad():
            returns = [self.play_episode() for _ in range(n_episodes)]
        return sum(returns) / len(returns)


if __name__ == "__main__":
    trainer = ReinforceTrainer()
    trainer.train()
    print("mean eval return", trainer.evaluate())
