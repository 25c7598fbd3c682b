"""Train a two-task regression MPNN on the GPU with Lightning."""
import lightning.pytorch as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from chemprop.models.model import MPNN
from chemprop.nn.predictors import RegressionFFN

X = torch.randn(512, 64)
Y = torch.randn(512, 2)
w_s = torch.ones(512)
lt = torch.zeros(512, 2, dtype=torch.bool)
gt = torch.zeros(512, 2, dtype=torch.bool)
loader = DataLoader(TensorDataset(X, Y, w_s, lt, gt), batch_size=64, shuffle=True)

encoder = nn.Sequential(nn.Linear(64, 300), nn.ReLU())
model = MPNN(encoder, RegressionFFN(n_tasks=2, input_dim=300, task_weights=torch.tensor([1.0, 0.5])))
trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=5)
trainer.fit(model, loader)
