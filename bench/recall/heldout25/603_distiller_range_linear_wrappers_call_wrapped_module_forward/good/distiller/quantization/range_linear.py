from enum import Enum

import torch
import torch.nn as nn

import distiller.modules


class LinearQuantMode(Enum):
    SYMMETRIC = 1
    ASYMMETRIC_UNSIGNED = 2


def _quant_params(t, num_bits, mode):
    max_abs = t.abs().max().clamp(min=1e-8)
    n = 2 ** (num_bits - 1) - 1
    scale = n / max_abs
    zero_point = torch.zeros_like(scale) if mode == LinearQuantMode.SYMMETRIC else torch.round(-t.min() * scale)
    return scale, zero_point


def linear_quantize_clamp(t, scale, zero_point, min_q, max_q, inplace=False):
    if inplace:
        t.mul_(scale).sub_(zero_point).round_().clamp_(min_q, max_q)
        return t
    return torch.clamp(torch.round(scale * t - zero_point), min_q, max_q)


def linear_dequantize(t, scale, zero_point):
    return (t + zero_point) / scale


class RangeLinearQuantWrapper(nn.Module):
    """Wraps a module: quantizes its inputs, calls it, re-quantizes its output.

    Statistics collectors and histogram collectors register forward hooks on the
    wrapped module, so it must run through its call operator.
    """

    def __init__(self, wrapped_module, num_bits_acts, num_bits_accum=32, mode=LinearQuantMode.SYMMETRIC):
        super().__init__()
        self.wrapped_module = wrapped_module
        self.num_bits_acts = num_bits_acts
        self.num_bits_accum = num_bits_accum
        self.mode = mode
        self.acts_min_q_val = -(2 ** (num_bits_acts - 1))
        self.acts_max_q_val = 2 ** (num_bits_acts - 1) - 1
        self.accum_min_q_val = -(2 ** (num_bits_accum - 1))
        self.accum_max_q_val = 2 ** (num_bits_accum - 1) - 1

    def forward(self, *inputs):
        if self.training:
            raise RuntimeError(self.__class__.__name__ + " can only be used in eval mode")
        inputs_q = []
        for t in inputs:
            scale, zp = _quant_params(t, self.num_bits_acts, self.mode)
            q = linear_quantize_clamp(t.data, scale, zp, self.acts_min_q_val, self.acts_max_q_val)
            q.quant_metadata = (scale, zp)
            inputs_q.append(q)
        accum = self.quantized_forward(*inputs_q)
        out_scale, out_zp = self.get_output_quantization_params(accum)
        out_q = linear_quantize_clamp(accum.data, out_scale / self.accum_scale, out_zp,
                                      self.acts_min_q_val, self.acts_max_q_val)
        return linear_dequantize(out_q, out_scale, out_zp)

    def quantized_forward(self, *inputs_q):
        raise NotImplementedError

    def get_output_quantization_params(self, accumulator):
        return _quant_params(accumulator.float() / self.accum_scale, self.num_bits_acts, self.mode)


class RangeLinearQuantParamLayerWrapper(RangeLinearQuantWrapper):
    """Conv/Linear layers: the weights are quantized once, in place."""

    def __init__(self, wrapped_module, num_bits_acts, num_bits_params, num_bits_accum=32,
                 mode=LinearQuantMode.SYMMETRIC):
        super().__init__(wrapped_module, num_bits_acts, num_bits_accum, mode)
        if not isinstance(wrapped_module, (nn.Conv2d, nn.Conv3d, nn.Linear)):
            raise ValueError(self.__class__.__name__ + " can wrap only Conv2D, Conv3D and Linear modules")
        self.params_min_q_val = -(2 ** (num_bits_params - 1))
        self.params_max_q_val = 2 ** (num_bits_params - 1) - 1
        w_scale, w_zero_point = _quant_params(wrapped_module.weight, num_bits_params, mode)
        self.register_buffer("w_scale", w_scale)
        self.register_buffer("w_zero_point", w_zero_point)
        linear_quantize_clamp(wrapped_module.weight.data, w_scale, w_zero_point,
                              self.params_min_q_val, self.params_max_q_val, inplace=True)
        self.has_bias = wrapped_module.bias is not None
        if self.has_bias:
            self.register_buffer("base_b", wrapped_module.bias.data.clone())
        self.accum_scale = 1

    def quantized_forward(self, input_q):
        in_scale, in_zp = input_q.quant_metadata
        self.accum_scale = in_scale * self.w_scale
        if self.has_bias:
            self.wrapped_module.bias.data = linear_quantize_clamp(self.base_b, self.accum_scale, 0,
                                                                  self.accum_min_q_val, self.accum_max_q_val)
        self.wrapped_module.weight.data += self.w_zero_point
        input_q += in_zp
        accum = self.wrapped_module(input_q)
        self.wrapped_module.weight.data -= self.w_zero_point
        return torch.clamp(accum.data, self.accum_min_q_val, self.accum_max_q_val)


class RangeLinearQuantMatmulWrapper(RangeLinearQuantWrapper):
    """distiller.modules.Matmul / BatchMatmul: both operands are activations."""

    def __init__(self, wrapped_module, num_bits_acts, num_bits_accum=32, mode=LinearQuantMode.SYMMETRIC):
        super().__init__(wrapped_module, num_bits_acts, num_bits_accum, mode)
        if not isinstance(wrapped_module, (distiller.modules.Matmul, distiller.modules.BatchMatmul)):
            raise ValueError(self.__class__.__name__ + " can wrap only Matmul modules")
        self.accum_scale = 1

    def quantized_forward(self, input0_q, input1_q):
        self.accum_scale = input0_q.quant_metadata[0] * input1_q.quant_metadata[0]
        accum = self.wrapped_module(input0_q + input0_q.quant_metadata[1],
                                    input1_q + input1_q.quant_metadata[1])
        return torch.clamp(accum.data, self.accum_min_q_val, self.accum_max_q_val)


class RangeLinearQuantEltwiseAddWrapper(RangeLinearQuantWrapper):
    def __init__(self, wrapped_module, num_bits_acts, mode=LinearQuantMode.SYMMETRIC):
        super().__init__(wrapped_module, num_bits_acts, mode=mode)
        if not isinstance(wrapped_module, distiller.modules.EltwiseAdd):
            raise ValueError(self.__class__.__name__ + " can only wrap distiller.modules.EltwiseAdd modules")
        self.accum_scale = 1

    def quantized_forward(self, *inputs_q):
        self.accum_scale = min(t.quant_metadata[0] for t in inputs_q)
        inputs_re_q = [linear_quantize_clamp(linear_dequantize(t, *t.quant_metadata), self.accum_scale, 0,
                                             self.accum_min_q_val, self.accum_max_q_val) for t in inputs_q]
        accum = self.wrapped_module(*inputs_re_q)
        return torch.clamp(accum.data, self.accum_min_q_val, self.accum_max_q_val)


class PostTrainLinearQuantizer:
    """Replaces the supported modules of a trained model by their quantized wrappers."""

    def __init__(self, model, bits_activations=8, bits_parameters=8, bits_accum=32,
                 mode=LinearQuantMode.SYMMETRIC):
        self.model = model
        self.bits_activations = bits_activations
        self.bits_parameters = bits_parameters
        self.bits_accum = bits_accum
        self.mode = mode

    def _wrap(self, module):
        if isinstance(module, (nn.Conv2d, nn.Conv3d, nn.Linear)):
            return RangeLinearQuantParamLayerWrapper(module, self.bits_activations, self.bits_parameters,
                                                     self.bits_accum, self.mode)
        if isinstance(module, (distiller.modules.Matmul, distiller.modules.BatchMatmul)):
            return RangeLinearQuantMatmulWrapper(module, self.bits_activations, self.bits_accum, self.mode)
        if isinstance(module, distiller.modules.EltwiseAdd):
            return RangeLinearQuantEltwiseAddWrapper(module, self.bits_activations, self.mode)
        return None

    def prepare_model(self):
        self.model.eval()
        for parent in list(self.model.modules()):
            for name, child in list(parent.named_children()):
                wrapper = self._wrap(child)
                if wrapper is not None:
                    setattr(parent, name, wrapper)
        return self.model
