import torch.nn as nn


class EltwiseAdd(nn.Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, *inputs):
        res = inputs[0]
        for t in inputs[1:]:
            res = res + t if not self.inplace else res.add_(t)
        return res
