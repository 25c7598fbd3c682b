import torch
import torch.nn as nn

from utils import CosineCutoff, GaussianRBF


class SchNetInteraction(nn.Module):
    def __init__(self, n_atom_basis: int, n_rbf: int):
        super().__init__()
        self.filter_net = nn.Sequential(nn.Linear(n_rbf, n_atom_basis), nn.SiLU(), nn.Linear(n_atom_basis, n_atom_basis))
        self.in2f = nn.Linear(n_atom_basis, n_atom_basis, bias=False)
        self.f2out = nn.Sequential(nn.Linear(n_atom_basis, n_atom_basis), nn.SiLU(), nn.Linear(n_atom_basis, n_atom_basis))

    def forward(self, x, f_ij, idx_i, idx_j, rcut_ij):
        w_ij = self.filter_net(f_ij) * rcut_ij[:, None]
        x_j = self.in2f(x)[idx_j]
        agg = torch.zeros_like(x).index_add_(0, idx_i, x_j * w_ij)
        return self.f2out(agg)


class SchNet(nn.Module):
    def __init__(self, max_z: int = 100, n_atom_basis: int = 64, n_interactions: int = 3, n_rbf: int = 20, cutoff: float = 5.0):
        super().__init__()
        self.embedding = nn.Embedding(max_z, n_atom_basis)
        self.radial_basis = GaussianRBF(n_rbf=n_rbf, cutoff=cutoff)
        self.cutoff_fn = CosineCutoff(cutoff)
        self.interactions = nn.ModuleList([SchNetInteraction(n_atom_basis, n_rbf) for _ in range(n_interactions)])
        self.readout = nn.Sequential(nn.Linear(n_atom_basis, n_atom_basis // 2), nn.SiLU(), nn.Linear(n_atom_basis // 2, 1))

    def forward(self, atomic_numbers, positions, pairs, atomic_subsystem_indices, n_molecules):
        idx_i, idx_j = pairs
        d_ij = (positions[idx_j] - positions[idx_i]).norm(dim=-1)
        f_ij = self.radial_basis(d_ij)
        rcut_ij = self.cutoff_fn(d_ij)
        x = self.embedding(atomic_numbers)
        for interaction in self.interactions:
            x = x + interaction(x, f_ij, idx_i, idx_j, rcut_ij)
        e_i = self.readout(x).squeeze(-1)
        return torch.zeros(n_molecules, device=e_i.device).index_add_(0, atomic_subsystem_indices, e_i)
