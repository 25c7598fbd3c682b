import torch
import torch.nn.functional as F


class ConsequentLayer(torch.nn.Module):
    """TSK consequents; with hybrid learning the coefficients are fitted by least squares."""

    def __init__(self, d_in, d_rule, d_out):
        super().__init__()
        self.register_buffer("coeff", torch.zeros(d_rule, d_out, d_in + 1))

    def fit_coeff(self, x, weights, y_actual):
        x_plus = torch.cat([x, torch.ones(x.shape[0], 1, device=x.device)], dim=1)
        weighted_x = torch.einsum("bp,bq->bpq", weights, x_plus)
        weighted_x[weighted_x == 0] = 1e-12
        weighted_x_2d = weighted_x.reshape(weighted_x.shape[0], -1)
        y_2d = y_actual.reshape(y_actual.shape[0], -1)
        try:
            solution = torch.linalg.lstsq(weighted_x_2d, y_2d).solution
        except RuntimeError as err:
            print("least-squares fit failed", err)
            raise
        self.coeff = solution.reshape(weights.shape[1], x.shape[1] + 1, -1).transpose(1, 2)

    def forward(self, x):
        x_plus = torch.cat([x, torch.ones(x.shape[0], 1, device=x.device)], dim=1)
        return torch.matmul(self.coeff, x_plus.t()).transpose(0, 2)


class AnfisNet(torch.nn.Module):
    def __init__(self, n_in, n_rules, n_out):
        super().__init__()
        self.centers = torch.nn.Parameter(torch.randn(n_rules, n_in))
        self.layer = torch.nn.ModuleDict({"consequent": ConsequentLayer(n_in, n_rules, n_out)})

    def firing(self, x):
        dist = torch.cdist(x, self.centers)
        return F.normalize(torch.exp(-dist), p=1, dim=1)

    def fit_coeff(self, x, y):
        with torch.no_grad():
            self.layer["consequent"].fit_coeff(x, self.firing(x), y)

    def forward(self, x):
        weights = self.firing(x)
        tsk = self.layer["consequent"](x)
        return torch.bmm(tsk, weights.unsqueeze(2)).squeeze(2)
