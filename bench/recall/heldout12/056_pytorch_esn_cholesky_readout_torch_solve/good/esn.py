import torch
from torch import nn


class ESN(nn.Module):
    """Echo State Network: fixed random reservoir, trained linear readout."""

    def __init__(self, input_size, hidden_size, output_size, spectral_radius=0.9, lambda_reg=1e-4, readout_training="gd"):
        super().__init__()
        if readout_training not in {"gd", "cholesky"}:
            raise ValueError(f"unknown readout training {readout_training!r}")
        self.readout_training = readout_training
        self.lambda_reg = lambda_reg
        self.reservoir = nn.RNN(input_size, hidden_size, nonlinearity="tanh", batch_first=True)
        for p in self.reservoir.parameters():
            p.requires_grad_(False)
        with torch.no_grad():
            w = self.reservoir.weight_hh_l0
            w.mul_(spectral_radius / torch.linalg.eigvals(w).abs().max())
        self.readout = nn.Linear(hidden_size, output_size)
        if readout_training == "cholesky":
            self.readout.weight.requires_grad_(False)
            self.readout.bias.requires_grad_(False)
        self.XTX = None
        self.XTy = None

    def forward(self, x, washout=0, target=None):
        states, _ = self.reservoir(x)
        states = states[:, washout:]
        if target is None or self.readout_training == "gd":
            return self.readout(states)
        # accumulate the normal equations for the offline ridge readout
        X = torch.cat([torch.ones(*states.shape[:2], 1, device=states.device), states], dim=-1).reshape(-1, states.size(-1) + 1)
        y = target[:, washout:].reshape(-1, target.size(-1))
        if self.XTX is None:
            self.XTX = X.t() @ X
            self.XTy = X.t() @ y
        else:
            self.XTX += X.t() @ X
            self.XTy += X.t() @ y
        return None

    def fit(self):
        if self.readout_training == "gd":
            return
        if self.readout_training == "cholesky":
            eye = torch.eye(self.XTX.size(0), device=self.XTX.device)
            W = torch.linalg.solve(self.XTX + self.lambda_reg * eye, self.XTy).t()
            self.XTX = None
            self.XTy = None
            self.readout.bias = nn.Parameter(W[:, 0], requires_grad=False)
            self.readout.weight = nn.Parameter(W[:, 1:], requires_grad=False)
