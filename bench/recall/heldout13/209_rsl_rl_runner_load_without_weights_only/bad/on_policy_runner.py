import os

import torch

from actor_critic import PPO, ActorCritic


class OnPolicyRunner:
    def __init__(self, num_obs, num_actions, log_dir, device="cpu"):
        self.device = device
        self.log_dir = log_dir
        self.alg = PPO(ActorCritic(num_obs, num_obs, num_actions), device=device)
        self.current_learning_iteration = 0

    def learn(self, num_learning_iterations, num_steps=24, num_envs=512):
        for it in range(self.current_learning_iteration, self.current_learning_iteration + num_learning_iterations):
            obs = torch.randn(num_envs * num_steps, self.alg.actor_critic.actor[0].in_features, device=self.device)
            with torch.no_grad():
                dist = self.alg.actor_critic.distribution(obs)
                actions = dist.sample()
                old_log_prob = dist.log_prob(actions).sum(-1)
            returns = torch.randn(obs.shape[0], device=self.device)
            advantages = (returns - returns.mean()) / (returns.std() + 1e-8)
            loss = self.alg.update(obs, actions, old_log_prob, advantages, returns)
            self.current_learning_iteration = it
            if it % 50 == 0:
                print(f"iteration {it}: loss {loss:.4f}")
                self.save(os.path.join(self.log_dir, f"model_{it}.pt"), infos={"loss": loss})

    def save(self, path, infos=None):
        torch.save({
            "model_state_dict": self.alg.actor_critic.state_dict(),
            "optimizer_state_dict": self.alg.optimizer.state_dict(),
            "iter": self.current_learning_iteration,
            "infos": infos,
        }, path)

    def load(self, path, load_optimizer=True):
        loaded_dict = torch.load(path)  # expect: TCK401
        self.alg.actor_critic.load_state_dict(loaded_dict["model_state_dict"])
        if load_optimizer:
            self.alg.optimizer.load_state_dict(loaded_dict["optimizer_state_dict"])
        self.current_learning_iteration = loaded_dict["iter"]
        return loaded_dict["infos"]

    def get_inference_policy(self, device=None):
        self.alg.actor_critic.eval()
        if device is not None:
            self.alg.actor_critic.to(device)
        return self.alg.actor_critic.act_inference


if __name__ == "__main__":
    os.makedirs("logs", exist_ok=True)
    runner = OnPolicyRunner(num_obs=48, num_actions=12, log_dir="logs")
    if os.path.exists("logs/model_0.pt"):
        runner.load("logs/model_0.pt")
    runner.learn(200)
