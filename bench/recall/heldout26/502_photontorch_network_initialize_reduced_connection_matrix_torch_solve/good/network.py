"""A network of components; `forward` reduces it to its memory-containing nodes and then steps in time."""

import warnings

import torch

from component import Component


class Network(Component):
    def __init__(self, components, connections, sources_at, detectors_at):
        super().__init__()
        self.components = torch.nn.ModuleDict(components)
        self.connections = connections
        self.num_ports = sum(comp.num_ports for comp in components.values())
        self.register_buffer("sources_at", sources_at)
        self.register_buffer("detectors_at", detectors_at)
        self.terminated = True

    def set_S(self, S):
        start = 0
        for comp in self.components.values():
            stop = start + comp.num_ports
            S[:, :, start:stop, start:stop] = comp.S
            start = stop

    def set_C(self, C):
        for i, j in self.connections:
            C[i, j] = C[j, i] = 1.0

    def initialize(self, env):
        """Reduce the connection matrix to the memory-containing (mc) nodes.

        C_red = C_mcml S_mlml inv(1 - C_mlml S_mlml) C_mlmc + C_mcmc, for all wavelengths;
        complex matrices are stored as real and imaginary parts.
        """
        for comp in self.components.values():
            comp.initialize(env)
        super().initialize(env)

        delays_in_seconds = self.delays * float(not env.freqdomain)
        delays_in_timesteps = (delays_in_seconds / env.dt + 0.5).long()
        mc = self.sources_at | self.detectors_at | (delays_in_timesteps > 0)
        ml = torch.where(mc.ne(1))[0]
        mc = torch.where(mc)[0]
        self.num_mc = mc.shape[0]
        self.num_ml = ml.shape[0]
        if not self.terminated or self.num_mc == 0:
            return self
        if (delays_in_timesteps[delays_in_seconds > 0] < 1).any():
            warnings.warn("Simulation timestep might be too large for the shortest delay", RuntimeWarning)

        rSmcmc = self.S[0, :, mc, :][:, :, mc]
        iSmcmc = self.S[1, :, mc, :][:, :, mc]
        rCmcmc = self.C[mc, :][:, mc]

        if self.num_ml == 0:
            rC, iC = torch.broadcast_tensors(rCmcmc[None], torch.zeros_like(rSmcmc))
        else:
            rSmlml = self.S[0, :, ml, :][:, :, ml]
            iSmlml = self.S[1, :, ml, :][:, :, ml]
            rCmcml = self.C[mc, :][:, ml]
            rCmlmc = self.C[ml, :][:, mc]
            rCmlml = self.C[ml, :][:, ml][None].expand(env.num_wl, self.num_ml, self.num_ml)

            # 1. helper matrix P = 1 - C_mlml S_mlml
            rP = torch.eye(self.num_ml, device=self.device)[None].expand(env.num_wl, -1, -1)
            rP = rP - rCmlml.bmm(rSmlml)
            iP = -rCmlml.bmm(iSmlml)

            # 2. x = inv(P) C_mlmc, as one real system of twice the size
            n = self.num_ml
            P = torch.zeros((env.num_wl, 2 * n, 2 * n), dtype=rP.dtype, device=rP.device)
            P[:, :n, :n] = rP
            P[:, :n, n:] = -iP
            P[:, n:, :n] = iP
            P[:, n:, n:] = rP
            Cmlmc = torch.cat([rCmlmc, torch.zeros_like(rCmlmc)], 0)[None].expand(env.num_wl, 2 * n, self.num_mc)
            x = torch.linalg.solve(P, Cmlmc)
            rx, ix = torch.split(x, n, 1)

            # 3. S_mlml x
            rx, ix = rSmlml.bmm(rx) - iSmlml.bmm(ix), iSmlml.bmm(rx) + rSmlml.bmm(ix)

            # 4.-5. C_mcml S_mlml x + C_mcmc
            rCmcml = rCmcml[None].expand(env.num_wl, self.num_mc, n)
            rC = rCmcml.bmm(rx) + rCmcmc[None]
            iC = rCmcml.bmm(ix)

        self._rS, self._iS, self._rC, self._iC = rSmcmc, iSmcmc, rC, iC
        self._env = env
        return self

    def forward(self, source, env):
        """Time-domain response at the detectors; initializes the network for `env` first."""
        self.initialize(env)
        num_t = source.shape[0]
        state_r = torch.zeros(env.num_wl, self.num_mc, 1, device=self.device)
        state_i = torch.zeros_like(state_r)
        detected = []
        for t in range(num_t):
            src = source[t].to(self.device)
            state_r, state_i = (
                self._rS.bmm(state_r) - self._iS.bmm(state_i),
                self._iS.bmm(state_r) + self._rS.bmm(state_i),
            )
            state_r, state_i = (
                self._rC.bmm(state_r) - self._iC.bmm(state_i) + src,
                self._iC.bmm(state_r) + self._rC.bmm(state_i),
            )
            detected.append(state_r ** 2 + state_i ** 2)
        return torch.stack(detected, 0)
