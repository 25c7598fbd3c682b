import os

import torch

from cosyvoice.utils.file_utils import convert_onnx_to_trt


class CosyVoiceModel:
    """Holds the LLM, the flow-matching decoder and the vocoder; optional JIT / TensorRT acceleration."""

    def __init__(self, llm: torch.nn.Module, flow: torch.nn.Module, hift: torch.nn.Module, fp16: bool):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.llm = llm
        self.flow = flow
        self.hift = hift
        self.fp16 = fp16
        self.flow.decoder.estimator.static_chunk_size = 0

    def load(self, llm_model, flow_model, hift_model):
        self.llm.load_state_dict(torch.load(llm_model, map_location=self.device, weights_only=True), strict=True)
        self.llm.to(self.device).eval()
        self.flow.load_state_dict(torch.load(flow_model, map_location=self.device, weights_only=True), strict=True)
        self.flow.to(self.device).eval()
        self.hift.load_state_dict(torch.load(hift_model, map_location=self.device, weights_only=True), strict=True)
        self.hift.to(self.device).eval()

    def load_trt(self, flow_decoder_estimator_model, flow_decoder_onnx_model, fp16):
        assert torch.cuda.is_available(), "tensorrt only supports gpu!"
        if not os.path.exists(flow_decoder_estimator_model):
            convert_onnx_to_trt(flow_decoder_estimator_model, flow_decoder_onnx_model, fp16)
        if os.path.getsize(flow_decoder_estimator_model) == 0:
            raise ValueError(f"{flow_decoder_estimator_model} is empty file, delete it and export again!")
        del self.flow.decoder.estimator
        import tensorrt as trt
        with open(flow_decoder_estimator_model, "rb") as f:
            engine = trt.Runtime(trt.Logger(trt.Logger.INFO)).deserialize_cuda_engine(f.read())
        if engine is None:
            raise ValueError(f"failed to load trt {flow_decoder_estimator_model}")
        self.flow.decoder.estimator_engine = engine
        self.flow.decoder.estimator = engine.create_execution_context()
