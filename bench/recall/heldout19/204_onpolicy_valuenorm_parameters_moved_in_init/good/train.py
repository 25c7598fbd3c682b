import argparse

import numpy as np
import torch

from mappo import MAPPO


def collect(env_step, trainer, obs, horizon, gamma=0.99):
    obs_buf, act_buf, logp_buf, rew_buf = [], [], [], []
    for _ in range(horizon):
        with torch.no_grad():
            dist = trainer.actor(torch.as_tensor(obs, dtype=torch.float32, device=trainer.device))
            action = dist.sample()
        next_obs, reward = env_step(action.cpu().numpy())
        obs_buf.append(obs)
        act_buf.append(action)
        logp_buf.append(dist.log_prob(action))
        rew_buf.append(reward)
        obs = next_obs
    returns, running = [], np.zeros_like(rew_buf[0])
    for r in reversed(rew_buf):
        running = r + gamma * running
        returns.insert(0, running)
    device = trainer.device
    obs_t = torch.as_tensor(np.concatenate(obs_buf), dtype=torch.float32, device=device)
    ret_t = torch.as_tensor(np.concatenate(returns), dtype=torch.float32, device=device).unsqueeze(-1)
    with torch.no_grad():
        values = trainer.critic(obs_t)
        if trainer.value_normalizer is not None:
            values = torch.as_tensor(trainer.value_normalizer.denormalize(values), device=device)
    adv = (ret_t - values).squeeze(-1)
    adv = (adv - adv.mean()) / (adv.std() + 1e-5)
    return obs, (obs_t, torch.cat(act_buf), torch.cat(logp_buf), ret_t, adv)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_agents", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--save_dir", default="results")
    args = parser.parse_args()
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    rng = np.random.default_rng(1)

    def env_step(actions):
        next_obs = rng.normal(size=(args.num_agents, 18)).astype(np.float32)
        return next_obs, (actions == 1).astype(np.float32)

    trainer = MAPPO(obs_dim=18, n_actions=5, device=device)
    obs = rng.normal(size=(args.num_agents, 18)).astype(np.float32)
    for episode in range(args.episodes):
        obs, batch = collect(env_step, trainer, obs, horizon=200)
        p_loss, v_loss = trainer.update(*batch)
        if episode % 100 == 0:
            print(f"episode {episode}: policy {p_loss:.3f} value {v_loss:.3f}")
            trainer.save(args.save_dir)


if __name__ == "__main__":
    main()
