import argparse

import numpy as np
import torch

from tianshou.utils.net.common import ActorCritic, DataParallelNet, Net
from tianshou.utils.net.discrete import Actor, Critic


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--hidden-sizes", type=int, nargs="*", default=[64, 64])
    parser.add_argument("--device", type=str, default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--steps", type=int, default=100)
    return parser.parse_args()


def test_ppo_networks(args=get_args()):
    state_shape, action_shape = (4,), (2,)
    net = Net(state_shape, hidden_sizes=args.hidden_sizes, device=args.device)
    if torch.cuda.is_available() and torch.cuda.device_count() > 1:
        actor = DataParallelNet(Actor(net, action_shape, device=None).to(args.device))
        critic = DataParallelNet(Critic(net, device=None).to(args.device))
    else:
        actor = Actor(net, action_shape, device=args.device).to(args.device)
        critic = Critic(net, device=args.device).to(args.device)
    actor_critic = ActorCritic(actor, critic)
    optim = torch.optim.Adam(actor_critic.parameters(), lr=args.lr)

    rng = np.random.default_rng(0)
    for _ in range(args.steps):
        obs = rng.standard_normal((32, 4)).astype(np.float32)
        returns = torch.as_tensor(rng.standard_normal(32), dtype=torch.float32, device=args.device)
        probs, _ = actor(obs)
        value = critic(obs).flatten()
        dist = torch.distributions.Categorical(probs)
        act = dist.sample()
        adv = (returns - value).detach()
        loss = -(dist.log_prob(act) * adv).mean() + 0.5 * (returns - value).pow(2).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()


if __name__ == "__main__":
    test_ppo_networks()
