import torch
from torch import nn
from torch.distributions import Categorical


def conv_trunk(in_channels, widths):
    layers = []
    for width in widths:
        layers += [nn.Conv2d(in_channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2)]
        in_channels = width
    return nn.Sequential(*layers, nn.Flatten())


class ActorCritic(nn.Module):
    def __init__(self, in_channels, n_actions, widths=(64, 128, 128), image_size=64):
        super().__init__()
        flat = widths[-1] * (image_size // 2 ** len(widths)) ** 2
        self.actor = nn.Sequential(conv_trunk(in_channels, widths), nn.Linear(flat, n_actions))
        self.critic = nn.Sequential(conv_trunk(in_channels, widths), nn.Linear(flat, 1))

    def evaluate(self, obs, actions):
        mass = Categorical(logits=self.actor(obs))
        return mass.log_prob(actions.view(-1)).view(-1, 1), self.critic(obs)

    def step(self, obs):
        mass = Categorical(logits=self.actor(obs))
        action = mass.sample()
        info = {"value": self.critic(obs), "log_prob": mass.log_prob(action).view(-1, 1), "mass": mass}
        return action, info
