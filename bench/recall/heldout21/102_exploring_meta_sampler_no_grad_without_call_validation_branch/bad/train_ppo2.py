import argparse

import numpy as np
import torch
from procgen import ProcgenEnv

from a2c_loss import compute_a2c_loss
from policies import ActorCritic
from sampler import Sampler

log_validation = True

params = {"ppo_epochs": 3, "lr": 5e-4, "gamma": 0.99, "tau": 0.95, "n_envs": 1, "n_steps": 256, "n_iters": 1000}


def make_env(env_name, seed):
    return ProcgenEnv(num_envs=params["n_envs"], env_name=env_name, num_levels=1, start_level=seed,
                      distribution_mode="easy")


def run(env_name, seed, device):
    torch.manual_seed(seed)
    env = make_env(env_name, seed)
    policy = ActorCritic(3, env.action_space.n).to(device)
    actor_optimiser = torch.optim.Adam(policy.actor.parameters(), lr=params["lr"])
    critic_optimiser = torch.optim.Adam(policy.critic.parameters(), lr=params["lr"])

    for iteration in range(params["n_iters"]):
        sampler = Sampler(env, policy, params["n_steps"], params["gamma"], params["tau"], device)
        samples = sampler.run(no_grad=False)
        reward = samples["rewards"].sum() / params["n_envs"]

        for _ in range(params["ppo_epochs"]):
            samples["advantages"], samples["returns"] = sampler.advantages_and_returns(
                samples["rewards"], samples["dones"], samples["values"])
            policy_loss, value_loss = compute_a2c_loss(policy, samples, device)

            # Optimize actor
            actor_optimiser.zero_grad()
            policy_loss.backward()
            actor_optimiser.step()

            # Optimize critic
            critic_optimiser.zero_grad()
            value_loss.backward()
            critic_optimiser.step()

        metrics = {"tr_reward": reward, "tr_actor": policy_loss.item(), "tr_critic": value_loss.item()}

        if log_validation:
            # Validation rollout of the same policy, collected without tracking gradients
            val_samples = sampler.run(no_grad=True)
            val_samples["advantages"], val_samples["returns"] = sampler.advantages_and_returns(
                val_samples["rewards"], val_samples["dones"], val_samples["values"])
            with torch.no_grad():
                val_actor, val_critic = compute_a2c_loss(policy, val_samples, device)
            metrics.update({"val_reward": val_samples["rewards"].sum() / params["n_envs"],
                            "val_actor": val_actor.item(), "val_critic": val_critic.item()})

        print(iteration, metrics)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="starpilot")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    run(args.env, args.seed, torch.device("cuda" if torch.cuda.is_available() else "cpu"))
