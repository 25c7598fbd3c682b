import torch
from torch import Tensor, nn

from chemprop.nn.loss import BCELoss, LossFunction, MSELoss


class _FFNPredictorBase(nn.Module):
    _default_criterion = MSELoss

    def __init__(self, n_tasks: int = 1, input_dim: int = 300, hidden_dim: int = 300,
                 criterion: LossFunction | None = None, task_weights: Tensor | None = None):
        super().__init__()
        self.n_tasks = n_tasks
        self.ffn = nn.Sequential(nn.Linear(input_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, n_tasks))
        w_t = torch.ones(self.n_tasks) if task_weights is None else task_weights
        self.criterion = criterion or self._default_criterion(w_t=w_t)

    def forward(self, Z: Tensor) -> Tensor:
        return self.ffn(Z)


class RegressionFFN(_FFNPredictorBase):
    _default_criterion = MSELoss


class BinaryClassificationFFN(_FFNPredictorBase):
    _default_criterion = BCELoss
