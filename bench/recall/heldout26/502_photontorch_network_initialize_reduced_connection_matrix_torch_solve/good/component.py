"""Base class of every photonic component: a scattering matrix, port delays and a connection matrix."""

import torch


class Component(torch.nn.Module):
    num_ports = 0

    def __init__(self, name=None):
        super().__init__()
        self.name = name
        self.register_buffer("_dummy", torch.zeros(1))

    @property
    def device(self):
        return self._dummy.device

    def set_S(self, S):
        """Fill S[0] (real) and S[1] (imaginary), shape (2, num_wl, num_ports, num_ports)."""

    def set_C(self, C):
        """Fill the connection matrix, shape (num_ports, num_ports)."""

    def set_delays(self, delays):
        """Fill the delay of each port, in seconds."""

    def initialize(self, env):
        self.S = torch.zeros((2, env.num_wl, self.num_ports, self.num_ports), device=self.device)
        self.C = torch.zeros((self.num_ports, self.num_ports), device=self.device)
        self.delays = torch.zeros(self.num_ports, device=self.device)
        self.set_S(self.S)
        self.set_C(self.C)
        self.set_delays(self.delays)
        return self
