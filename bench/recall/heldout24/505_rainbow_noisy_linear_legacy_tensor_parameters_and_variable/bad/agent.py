import random

import torch
from torch import optim
from torch.autograd import Variable

from model import DQN


class Agent:
    def __init__(self, args, action_space):
        self.action_space = action_space
        self.atoms = args.atoms
        self.Vmin, self.Vmax = args.V_min, args.V_max
        self.support = torch.linspace(args.V_min, args.V_max, args.atoms)
        self.delta_z = (args.V_max - args.V_min) / (args.atoms - 1)
        self.batch_size = args.batch_size
        self.n = args.multi_step
        self.discount = args.discount

        self.online_net = DQN(args, action_space)
        self.online_net.train()
        self.target_net = DQN(args, action_space)
        self.update_target_net()
        self.target_net.train()
        for param in self.target_net.parameters():
            param.requires_grad = False
        self.optimiser = optim.Adam(self.online_net.parameters(), lr=args.lr, eps=args.adam_eps)

    def reset_noise(self):
        self.online_net.reset_noise()

    def act(self, state):
        with torch.no_grad():
            return (self.online_net(state.unsqueeze(0)) * self.support).sum(2).argmax(1).item()

    def act_e_greedy(self, state, epsilon=0.001):
        return random.randrange(self.action_space) if random.random() < epsilon else self.act(state)

    def learn(self, mem):
        idxs, states, actions, returns, next_states, nonterminals, weights = mem.sample(self.batch_size)

        with torch.no_grad():
            self.online_net.reset_noise()
            pns = self.online_net(next_states)
            argmax_indices_ns = (self.support.expand_as(pns) * pns).sum(2).argmax(1)
            self.target_net.reset_noise()
            pns_a = self.target_net(next_states)[range(self.batch_size), argmax_indices_ns]

            Tz = returns.unsqueeze(1) + nonterminals * (self.discount ** self.n) * self.support.unsqueeze(0)
            Tz = Tz.clamp(min=self.Vmin, max=self.Vmax)
            b = (Tz - self.Vmin) / self.delta_z
            l, u = b.floor().long(), b.ceil().long()
            l[(u > 0) * (l == u)] -= 1
            u[(l < (self.atoms - 1)) * (l == u)] += 1

            m = states.new_zeros(self.batch_size, self.atoms)
            offset = torch.arange(self.batch_size).unsqueeze(1).mul(self.atoms).expand(self.batch_size, self.atoms)
            m.view(-1).index_add_(0, (l + offset).view(-1), (pns_a * (u.float() - b)).view(-1))
            m.view(-1).index_add_(0, (u + offset).view(-1), (pns_a * (b - l.float())).view(-1))

        # the target is computed first: reset_noise() rewrites the noise buffers in place
        ps = self.online_net(states)
        ps_a = ps[range(self.batch_size), actions].clamp(min=1e-3)
        loss = -torch.sum(Variable(m) * ps_a.log(), 1)  # expect: TCK703
        self.online_net.zero_grad()
        (weights * loss).mean().backward()
        self.optimiser.step()

        mem.update_priorities(idxs, loss.detach())

    def update_target_net(self):
        self.target_net.load_state_dict(self.online_net.state_dict())
