import torch
import torch.nn.functional as F


class InstanceNormPerSampleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias, eps):
        ctx.save_for_backward(input, weight)
        ctx.eps = eps
        return F.instance_norm(input, weight=weight, bias=bias, eps=eps)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        eps = ctx.eps
        reduce_dims = tuple(range(2, input.dim()))
        mean = input.mean(dim=reduce_dims, keepdim=True)
        var = input.var(dim=reduce_dims, unbiased=False, keepdim=True)
        rstd = 1 / torch.sqrt(var + eps)  # expect: TCK915
        x_hat = (input - mean) * rstd
        shape = [1, -1] + [1] * (input.dim() - 2)
        g = grad_output * weight.reshape(shape)
        m = 1
        for d in reduce_dims:
            m *= input.shape[d]
        grad_input = rstd / m * (m * g - g.sum(dim=reduce_dims, keepdim=True) - x_hat * (g * x_hat).sum(dim=reduce_dims, keepdim=True))
        # per-sample gradients of the affine parameters, one row per batch element
        grad_sample_weight = (grad_output * x_hat).sum(dim=reduce_dims)
        grad_sample_bias = grad_output.sum(dim=reduce_dims)
        weight.grad_sample = grad_sample_weight
        return grad_input, grad_sample_weight.sum(0), grad_sample_bias.sum(0), None


def instance_norm_with_grad_sample(input, weight, bias, eps=1e-5):
    return InstanceNormPerSampleGrad.apply(input, weight, bias, eps)
