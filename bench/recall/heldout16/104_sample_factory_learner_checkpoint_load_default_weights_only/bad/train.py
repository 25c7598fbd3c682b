import argparse

import torch

from sample_factory.learner import Learner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_dir", default="train_dir")
    parser.add_argument("--experiment", default="cartpole_ppo")
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--steps", type=int, default=1000)
    cfg = parser.parse_args()

    learner = Learner(cfg, policy_id=0, obs_dim=4, num_actions=2)
    learner.init()
    for step in range(cfg.steps):
        obs = torch.randn(64, 4, device=learner.device)
        actions = torch.randint(0, 2, (64,), device=learner.device)
        advantages = torch.randn(64, device=learner.device)
        returns = torch.randn(64, device=learner.device)
        old_log_probs = torch.full((64,), -0.69, device=learner.device)
        learner.train_on_batch(obs, actions, advantages, returns, old_log_probs)
        if step % 100 == 0:
            learner.save()


if __name__ == "__main__":
    main()
