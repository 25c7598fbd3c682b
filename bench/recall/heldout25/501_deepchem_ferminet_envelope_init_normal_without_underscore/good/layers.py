import math
from typing import List

import torch


class FerminetEnvelope(torch.nn.Module):
    """Envelope layer of FermiNet: turns the one-electron stream into orbital values."""

    def __init__(self, n_one: List[int], n_two: List[int], total_electron: int,
                 batch_size: int, spin: List[int], no_of_atoms: int,
                 determinant: int):
        super(FerminetEnvelope, self).__init__()
        self.n_one = n_one
        self.n_two = n_two
        self.total_electron = total_electron
        self.batch_size = batch_size
        self.spin = spin
        self.no_of_atoms = no_of_atoms
        self.determinant = determinant

        self.envelope_w = torch.nn.ParameterList()
        self.envelope_g = torch.nn.ParameterList()
        self.sigma = torch.nn.ParameterList()
        self.pi = torch.nn.ParameterList()
        self.wdet = torch.nn.ParameterList()

        # random normal start for the determinant weights and the envelope
        for _ in range(self.determinant):
            self.wdet.append(torch.nn.init.normal_(torch.zeros(1)).squeeze(0))
            for _ in range(self.total_electron):
                self.envelope_w.append(
                    (torch.nn.init.normal_(torch.zeros(n_one[-1], 1)) /
                     math.sqrt(n_one[-1])).squeeze(-1))
                self.envelope_g.append(
                    torch.nn.init.normal_(torch.zeros(1)).squeeze(0))
                for _ in range(self.no_of_atoms):
                    self.pi.append(torch.zeros(1))
                    self.sigma.append(torch.eye(3))

    def forward(self, one_electron: torch.Tensor, one_electron_permuted: torch.Tensor):
        psi = torch.zeros(self.batch_size)
        psi_up, psi_down = [], []
        n_up, n_down = self.spin
        for k in range(self.determinant):
            for lo, hi, out in ((0, n_up, psi_up), (n_up, n_up + n_down, psi_down)):
                det = []
                for i in range(lo, hi):
                    idx = k * self.total_electron + i
                    for j in range(lo, hi):
                        linear = torch.sum(self.envelope_w[idx] * one_electron[:, j, :] + self.envelope_g[idx], dim=1)
                        dist = torch.norm(one_electron_permuted[:, j, :, :] @ self.sigma[idx], dim=2)
                        decay = torch.sum(torch.exp(-torch.abs(dist)) * self.pi[idx].T, dim=1)
                        det.append(linear * decay)
                out.append(torch.stack(det, dim=1).reshape(self.batch_size, hi - lo, hi - lo))
            psi = psi + self.wdet[k] * torch.det(psi_up[-1]) * torch.det(psi_down[-1])
        return psi, torch.stack(psi_up, dim=1), torch.stack(psi_down, dim=1)
