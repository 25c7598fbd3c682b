import math

import torch
from torch import nn


class CustomizedLinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias, mask):
        weight = weight * mask
        ctx.save_for_backward(input, weight, bias, mask)
        output = input.mm(weight.t())
        return output + bias.unsqueeze(0).expand_as(output)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias, mask = ctx.saved_tensors
        grad_input = grad_output.mm(weight)
        grad_weight = grad_output.t().mm(input) * mask
        return grad_input, grad_weight, grad_output.sum(0), None


class CustomizedLinear(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.input_features = mask.shape[0]
        self.output_features = mask.shape[1]
        if isinstance(mask, torch.Tensor):
            mask_t = mask.type(torch.float).t()
        else:
            mask_t = torch.tensor(mask, dtype=torch.float).t()
        self.mask = nn.Parameter(mask_t, requires_grad=False)
        self.weight = nn.Parameter(torch.empty(self.output_features, self.input_features))
        self.bias = nn.Parameter(torch.empty(self.output_features))
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input):
        return CustomizedLinearFunction.apply(input, self.weight, self.bias, self.mask)
