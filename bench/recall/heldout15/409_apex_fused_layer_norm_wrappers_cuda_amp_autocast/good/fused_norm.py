import numbers

import torch
import torch.nn.functional as F
from torch import nn

import fused_layer_norm_cuda


def _cast_if_autocast_enabled(*args):
    if not torch.is_autocast_enabled():
        return args
    dtype = torch.get_autocast_gpu_dtype()
    return tuple(a.to(dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)


class FusedLayerNormAffineFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, normalized_shape, eps):
        ctx.normalized_shape, ctx.eps = normalized_shape, eps
        out, mean, invvar = fused_layer_norm_cuda.forward_affine(x.contiguous(), normalized_shape, weight, bias, eps)
        ctx.save_for_backward(x, weight, bias, mean, invvar)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, bias, mean, invvar = ctx.saved_tensors
        gx, gw, gb = fused_layer_norm_cuda.backward_affine(
            grad_out.contiguous(), mean, invvar, x, ctx.normalized_shape, weight, bias, ctx.eps)
        return gx, gw, gb, None, None


class FusedLayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, normalized_shape, eps):
        ctx.normalized_shape, ctx.eps = normalized_shape, eps
        out, mean, invvar = fused_layer_norm_cuda.forward(x.contiguous(), normalized_shape, eps)
        ctx.save_for_backward(x, mean, invvar)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, mean, invvar = ctx.saved_tensors
        gx = fused_layer_norm_cuda.backward(grad_out.contiguous(), mean, invvar, x, ctx.normalized_shape, ctx.eps)
        return gx, None, None


class FusedRMSNormAffineFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, normalized_shape, eps):
        ctx.normalized_shape, ctx.eps = normalized_shape, eps
        out, invvar = fused_layer_norm_cuda.rms_forward_affine(x.contiguous(), normalized_shape, weight, eps)
        ctx.save_for_backward(x, weight, invvar)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, invvar = ctx.saved_tensors
        gx, gw = fused_layer_norm_cuda.rms_backward_affine(
            grad_out.contiguous(), invvar, x, ctx.normalized_shape, weight, ctx.eps)
        return gx, gw, None, None


class FusedRMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, normalized_shape, eps):
        ctx.normalized_shape, ctx.eps = normalized_shape, eps
        out, invvar = fused_layer_norm_cuda.rms_forward(x.contiguous(), normalized_shape, eps)
        ctx.save_for_backward(x, invvar)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, invvar = ctx.saved_tensors
        gx = fused_layer_norm_cuda.rms_backward(grad_out.contiguous(), invvar, x, ctx.normalized_shape, ctx.eps)
        return gx, None, None


def fused_layer_norm_affine(x, weight, bias, normalized_shape, eps=1e-6):
    args = _cast_if_autocast_enabled(x, weight, bias, normalized_shape, eps)
    with torch.amp.autocast("cuda", enabled=False):
        return FusedLayerNormAffineFunction.apply(*args)


def fused_layer_norm(x, normalized_shape, eps=1e-6):
    args = _cast_if_autocast_enabled(x, normalized_shape, eps)
    with torch.amp.autocast("cuda", enabled=False):
        return FusedLayerNormFunction.apply(*args)


def fused_rms_norm_affine(x, weight, normalized_shape, eps=1e-6):
    args = _cast_if_autocast_enabled(x, weight, normalized_shape, eps)
    with torch.amp.autocast("cuda", enabled=False):
        return FusedRMSNormAffineFunction.apply(*args)


def fused_rms_norm(x, normalized_shape, eps=1e-6):
    args = _cast_if_autocast_enabled(x, normalized_shape, eps)
    with torch.amp.autocast("cuda", enabled=False):
        return FusedRMSNormFunction.apply(*args)


class FusedLayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = torch.Size(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(*normalized_shape))
            self.bias = nn.Parameter(torch.zeros(*normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        if not x.is_cuda:
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        if self.elementwise_affine:
            return fused_layer_norm_affine(x, self.weight, self.bias, self.normalized_shape, self.eps)
        return fused_layer_norm(x, self.normalized_shape, self.eps)


class FusedRMSNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = torch.Size(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(*normalized_shape))
        else:
            self.register_parameter("weight", None)

    def forward(self, x):
        if not x.is_cuda:
            dims = tuple(range(-len(self.normalized_shape), 0))
            out = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + self.eps)
            return out * self.weight if self.elementwise_affine else out
        if self.elementwise_affine:
            return fused_rms_norm_affine(x, self.weight, self.normalized_shape, self.eps)
        return fused_rms_norm(x, self.normalized_shape, self.eps)
