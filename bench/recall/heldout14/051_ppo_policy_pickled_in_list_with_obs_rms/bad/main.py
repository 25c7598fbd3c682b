import os

import torch

from model import Policy, RunningMeanStd


def rollout(policy, ob_rms, steps, obs_dim):
    obs = torch.randn(steps, obs_dim)
    ob_rms.update(obs)
    norm_obs = (obs - ob_rms.mean) / (ob_rms.var.sqrt() + 1e-8)
    actions, log_probs, values = policy.act(norm_obs)
    returns = torch.randn(steps)
    return norm_obs, actions, log_probs.detach(), returns


def main(save_dir="trained_models/ppo", env_name="CartPole", updates=100, save_interval=10):
    obs_dim, n_actions = 4, 2
    actor_critic = Policy(obs_dim, n_actions)
    ob_rms = RunningMeanStd(obs_dim)
    optimizer = torch.optim.Adam(actor_critic.parameters(), lr=3e-4)
    for j in range(updates):
        obs, actions, old_log_probs, returns = rollout(actor_critic, ob_rms, 128, obs_dim)
        logits, values = actor_critic(obs)
        dist = torch.distributions.Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
        advantages = returns - values.squeeze(-1).detach()
        policy_loss = -torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages).mean()
        value_loss = (returns - values.squeeze(-1)).pow(2).mean()
        optimizer.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        optimizer.step()

        if j % save_interval == 0 or j == updates - 1:
            os.makedirs(save_dir, exist_ok=True)
            torch.save([actor_critic, ob_rms], os.path.join(save_dir, env_name + ".pt"))  # expect: TCK402


def enjoy(load_dir="trained_models/ppo", env_name="CartPole"):
    actor_critic, ob_rms = torch.load(os.path.join(load_dir, env_name + ".pt"), map_location="cpu", weights_only=False)
    actor_critic.eval()
    obs = torch.randn(1, 4)
    with torch.no_grad():
        action, _, _ = actor_critic.act((obs - ob_rms.mean) / (ob_rms.var.sqrt() + 1e-8))
    return action


if __name__ == "__main__":
    main()
    print(enjoy())
