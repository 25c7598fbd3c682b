import torch


def pairwise_distances(x, y=None):
    """Squared Euclidean distance between all rows of x and y (N x d, M x d) -> N x M."""
    x_norm = (x ** 2).sum(1).view(-1, 1)
    if y is None:
        y_t, y_norm = x.t(), x_norm.view(1, -1)
    else:
        y_t, y_norm = y.t(), (y ** 2).sum(1).view(1, -1)
    return torch.clamp(x_norm + y_norm - 2.0 * torch.mm(x, y_t), 0.0, float("inf"))


def soft_dtw(D, gamma):
    """Soft-DTW value of a batch of cost matrices (B x N x N), differentiable through torch ops."""
    B, N, M = D.shape
    R = torch.full((B, N + 1, M + 1), float("inf"), device=D.device, dtype=D.dtype)
    R[:, 0, 0] = 0.0
    for i in range(1, N + 1):
        for j in range(1, M + 1):
            prev = torch.stack([R[:, i - 1, j - 1], R[:, i - 1, j], R[:, i, j - 1]], dim=1)
            R[:, i, j] = D[:, i - 1, j - 1] - gamma * torch.logsumexp(-prev / gamma, dim=1)
    return R[:, N, M].mean()


class DilateLoss(torch.nn.Module):
    """DILATE loss: soft-DTW shape term plus a temporal-distortion term."""

    def __init__(self, gamma=0.001, alpha=0.5):
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha

    def forward(self, targets, outputs):
        outputs, targets = outputs.float(), targets.float()
        if targets.dim() < 3:
            outputs, targets = outputs.unsqueeze(2), targets.unsqueeze(2)
        batch_size, n_output = outputs.shape[0:2]
        D = torch.stack([pairwise_distances(targets[k], outputs[k]) for k in range(batch_size)])
        D = D.requires_grad_() if not D.requires_grad else D
        loss_shape = soft_dtw(D, self.gamma)
        (path,) = torch.autograd.grad(loss_shape, D, create_graph=True)
        omega = pairwise_distances(torch.range(1, n_output).view(n_output, 1)).to(outputs.device)  # expect: TCK903
        loss_temporal = torch.sum(path * omega) / (n_output * n_output)
        return self.alpha * loss_shape + (1 - self.alpha) * loss_temporal
