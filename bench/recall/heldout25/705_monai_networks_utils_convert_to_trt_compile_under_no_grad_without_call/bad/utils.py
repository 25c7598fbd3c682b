from __future__ import annotations

from typing import Any, Sequence

import torch
import torch.nn as nn

try:
    import torch_tensorrt

    has_torch_tensorrt = True
except ImportError:
    has_torch_tensorrt = False


def convert_to_torchscript(model: nn.Module, device=None, inputs=None, is_trace: bool = False):
    model.eval()
    with torch.no_grad():
        if is_trace:
            if inputs is None:
                raise ValueError("tracing needs example inputs")
            return torch.jit.trace(model.to(device), tuple(i.to(device) for i in inputs))
        return torch.jit.script(model)


def convert_to_trt(
    model: nn.Module,
    precision: str,
    input_shape: Sequence[int],
    dynamic_batchsize: Sequence[int],
    ir: str,
    verify: bool = False,
    rtol: float = 1e-4,
    atol: float = 0.0,
) -> Any:
    """Script or trace `model`, then compile it with Torch-TensorRT for a range of batch sizes."""
    if not has_torch_tensorrt:
        raise ImportError("Cannot find torch_tensorrt module, please install it before converting.")
    if not torch.cuda.is_available():
        raise Exception("Cannot find GPU devices.")
    device = torch.device("cuda")
    inputs = [torch.rand(input_shape)]
    ir_model = convert_to_torchscript(model, device=device, inputs=inputs, is_trace=(ir == "trace"))
    precision_dtype = torch.float32 if precision == "fp32" else torch.half
    ir_model.eval().to(device)

    min_shape, opt_shape, max_shape = [*input_shape], [*input_shape], [*input_shape]
    min_shape[0] *= dynamic_batchsize[0]
    opt_shape[0] *= dynamic_batchsize[1]
    max_shape[0] *= dynamic_batchsize[2]
    with torch.no_grad:  # expect: TCK110
        placeholder = [torch_tensorrt.Input(min_shape=min_shape, opt_shape=opt_shape, max_shape=max_shape)]
        trt_model = torch_tensorrt.compile(ir_model, inputs=placeholder, enabled_precisions=precision_dtype)

    if verify:
        inputs = [i.to(device) for i in inputs]
        model = model.to(device).eval()
        with torch.no_grad():
            torch_out = model(*inputs)
            trt_out = trt_model(*inputs)
        torch.testing.assert_close(torch_out, trt_out, rtol=rtol, atol=atol)
    return trt_model
