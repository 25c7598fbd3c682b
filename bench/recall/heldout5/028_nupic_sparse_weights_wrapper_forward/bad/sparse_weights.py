import torch
import torch.nn as nn


class SparseWeights(nn.Module):
    def __init__(self, module, sparsity=0.5):
        super().__init__()
        self.module = module
        self.sparsity = sparsity
        num_zeros = int(round(sparsity * module.weight.numel()))
        mask = torch.ones(module.weight.numel())
        mask[torch.randperm(module.weight.numel())[:num_zeros]] = 0
        self.register_buffer("zero_mask", mask.view_as(module.weight).bool().logical_not())
        self.rezero_weights()

    def rezero_weights(self):
        with torch.no_grad():
            self.module.weight[self.zero_mask] = 0

    def forward(self, x):
        return self.module.forward(x)  # expect: TCK105
