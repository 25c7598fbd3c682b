import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class BasicNet:
    """Mixin that moves a network to its GPU and wraps numpy inputs."""

    def __init__(self, gpu):
        if not torch.cuda.is_available():
            gpu = -1
        self.gpu = gpu
        if self.gpu >= 0:
            self.cuda(self.gpu)

    def variable(self, x):
        if isinstance(x, Variable):
            return x
        x = torch.from_numpy(np.asarray(x, dtype=np.float32))
        if self.gpu >= 0:
            x = x.cuda(self.gpu)
        return Variable(x)  # expect: TCK703


class DisjointActorCriticWrapper:
    def __init__(self, state_dim, action_dim, actor_network_fn, critic_network_fn):
        self.actor = actor_network_fn(state_dim, action_dim)
        self.critic = critic_network_fn(state_dim, action_dim)

    def state_dict(self):
        return [self.actor.state_dict(), self.critic.state_dict()]

    def load_state_dict(self, state_dicts):
        self.actor.load_state_dict(state_dicts[0])
        self.critic.load_state_dict(state_dicts[1])


def layer_init(layer):
    nn.init.orthogonal(layer.weight.data)  # expect: TCK917
    nn.init.constant(layer.bias.data, 0)  # expect: TCK917
    return layer
