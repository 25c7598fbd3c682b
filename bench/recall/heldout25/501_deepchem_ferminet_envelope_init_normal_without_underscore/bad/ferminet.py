from typing import List

import torch

from layers import FerminetEnvelope


class FerminetElectronFeature(torch.nn.Module):
    """One-electron and two-electron streams of FermiNet (simplified)."""

    def __init__(self, n_one: List[int], n_two: List[int], no_of_atoms: int):
        super().__init__()
        self.v = torch.nn.ModuleList()
        self.w = torch.nn.ModuleList()
        in_one, in_two = 4 * no_of_atoms, 4
        for out_one, out_two in zip(n_one, n_two):
            self.v.append(torch.nn.Linear(in_one, out_one))
            self.w.append(torch.nn.Linear(in_two, out_two))
            in_one, in_two = out_one, out_two

    def forward(self, one_electron: torch.Tensor, two_electron: torch.Tensor):
        for v, w in zip(self.v, self.w):
            one_electron = torch.tanh(v(one_electron))
            two_electron = torch.tanh(w(two_electron))
        return one_electron, two_electron


class FerminetModel(torch.nn.Module):
    """Wavefunction ansatz: electron features followed by the envelope layer."""

    def __init__(self, nucleon_pos: torch.Tensor, spin: List[int], batch_size: int = 8,
                 n_one: List[int] = [32, 32], n_two: List[int] = [16, 16], determinant: int = 4):
        super().__init__()
        self.nucleon_pos = nucleon_pos
        self.batch_size = batch_size
        no_of_atoms = nucleon_pos.shape[0]
        total_electron = sum(spin)
        self.features = FerminetElectronFeature(n_one, n_two, no_of_atoms)
        self.envelope = FerminetEnvelope(n_one, n_two, total_electron, batch_size,
                                         spin, no_of_atoms, determinant)

    def forward(self, electrons: torch.Tensor):
        # electrons: (batch, n_electron, 3)
        rel = electrons[:, :, None, :] - self.nucleon_pos[None, None, :, :]
        dist = torch.norm(rel, dim=-1, keepdim=True)
        one = torch.cat([rel, dist], dim=-1).flatten(2)
        pair = electrons[:, :, None, :] - electrons[:, None, :, :]
        two = torch.cat([pair, torch.norm(pair, dim=-1, keepdim=True)], dim=-1)
        one, _ = self.features(one, two)
        psi, _, _ = self.envelope(one, rel)
        return psi


if __name__ == "__main__":
    model = FerminetModel(torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 1.4]]), spin=[1, 1])
    print(model(torch.randn(8, 2, 3)).shape)
