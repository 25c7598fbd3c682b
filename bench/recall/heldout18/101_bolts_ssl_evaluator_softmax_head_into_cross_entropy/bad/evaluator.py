import torch.nn as nn


class SSLEvaluator(nn.Module):
    """Linear or MLP probe trained on top of frozen self-supervised features."""

    def __init__(self, n_input, n_classes, n_hidden=512, p=0.1):
        super().__init__()
        if n_hidden is None:
            self.block_forward = nn.Sequential(
                nn.Flatten(),
                nn.Dropout(p=p),
                nn.Linear(n_input, n_classes),
                nn.Softmax(dim=-1),
            )
        else:
            self.block_forward = nn.Sequential(
                nn.Flatten(),
                nn.Dropout(p=p),
                nn.Linear(n_input, n_hidden, bias=False),
                nn.BatchNorm1d(n_hidden),
                nn.ReLU(inplace=True),
                nn.Dropout(p=p),
                nn.Linear(n_hidden, n_classes),
                nn.Softmax(dim=-1),
            )

    def forward(self, x):
        return self.block_forward(x)
