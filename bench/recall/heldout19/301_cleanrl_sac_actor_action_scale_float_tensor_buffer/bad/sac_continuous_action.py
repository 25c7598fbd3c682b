import random

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
import torch.optim as optim

from agents import Actor, SoftQNetwork, action_bounds


def main(env_id="Pendulum-v1", seed=1, total_timesteps=50_000, learning_starts=5_000, batch_size=256,
         gamma=0.99, tau=0.005, alpha=0.2):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    env = gym.make(env_id)
    obs_dim = int(np.prod(env.observation_space.shape))
    act_dim = int(np.prod(env.action_space.shape))
    low, high = action_bounds(env.action_space)

    actor = Actor(obs_dim, act_dim, low, high).to(device)
    qf1 = SoftQNetwork(obs_dim, act_dim).to(device)
    qf1_target = SoftQNetwork(obs_dim, act_dim).to(device)
    qf1_target.load_state_dict(qf1.state_dict())
    q_optimizer = optim.Adam(qf1.parameters(), lr=1e-3)
    actor_optimizer = optim.Adam(actor.parameters(), lr=3e-4)

    buffer = []
    obs, _ = env.reset(seed=seed)
    for global_step in range(total_timesteps):
        if global_step < learning_starts:
            action = env.action_space.sample()
        else:
            with torch.no_grad():
                action, _ = actor.get_action(torch.as_tensor(obs, dtype=torch.float32, device=device).unsqueeze(0))
            action = action.squeeze(0).cpu().numpy()
        next_obs, reward, terminated, truncated, _ = env.step(action)
        buffer.append((obs, action, reward, next_obs, float(terminated)))
        obs = next_obs if not (terminated or truncated) else env.reset()[0]

        if global_step > learning_starts:
            batch = random.sample(buffer, batch_size)
            o, a, r, no, d = (torch.as_tensor(np.array(x), dtype=torch.float32, device=device) for x in zip(*batch))
            with torch.no_grad():
                next_a, next_logp = actor.get_action(no)
                target = r.unsqueeze(1) + gamma * (1 - d.unsqueeze(1)) * (qf1_target(no, next_a) - alpha * next_logp)
            qf_loss = F.mse_loss(qf1(o, a), target)
            q_optimizer.zero_grad()
            qf_loss.backward()
            q_optimizer.step()

            pi, log_pi = actor.get_action(o)
            actor_loss = (alpha * log_pi - qf1(o, pi)).mean()
            actor_optimizer.zero_grad()
            actor_loss.backward()
            actor_optimizer.step()

            with torch.no_grad():
                for param, target_param in zip(qf1.parameters(), qf1_target.parameters()):
                    target_param.lerp_(param, tau)


if __name__ == "__main__":
    main()
