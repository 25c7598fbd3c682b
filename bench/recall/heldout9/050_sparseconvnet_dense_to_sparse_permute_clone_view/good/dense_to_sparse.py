import torch
from torch.autograd import Function


class DenseToSparseFunction(Function):
    @staticmethod
    def forward(ctx, dense, dimension):
        ctx.dimension = dimension
        order = [0] + list(range(2, 2 + dimension)) + [1]
        feats = dense.permute(*order).clone()
        ctx.feats_shape = feats.size()
        active = feats.abs().sum(dimension + 1)
        strides = torch.LongTensor(active.stride()).view(1, dimension + 1)
        active = active.nonzero()
        strides = strides.type_as(active)
        feats = feats.reshape(-1, dense.size(1))
        ctx.flat_shape = feats.size()
        rows = (active * strides.expand_as(active)).sum(1).view(-1)
        out = feats.index_select(0, rows)
        ctx.save_for_backward(rows)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (rows,) = ctx.saved_tensors
        grad = grad_out.new_zeros(ctx.flat_shape).index_copy_(0, rows, grad_out)
        grad = grad.view(ctx.feats_shape).permute(0, ctx.dimension + 1, *range(1, ctx.dimension + 1))
        return grad, None
