import json

import torch

from utils import convert_to_trt


def trt_export(net_factory, checkpoint_state, filepath, precision="fp32", input_shape=(1, 1, 96, 96, 96),
               dynamic_batchsize=(1, 1, 1), use_trace=False, config_file=None):
    """Export a bundle's network as a TensorRT-compiled TorchScript file."""
    net = net_factory()
    net.load_state_dict(checkpoint_state)
    trt_model = convert_to_trt(
        model=net,
        precision=precision,
        input_shape=list(input_shape),
        dynamic_batchsize=list(dynamic_batchsize),
        ir="trace" if use_trace else "script",
        verify=True,
    )
    extra = {"metadata.json": json.dumps({"precision": precision, "input_shape": list(input_shape)})}
    torch.jit.save(trt_model, filepath, _extra_files=extra)
    return filepath
