import torch

from testing_utils import torch_device


class QuantizationTesterMixin:
    def _test_quantization_training(self, model, inputs):
        for param in model.parameters():
            param.requires_grad = False
        adapters = [m for m in model.modules() if hasattr(m, "lora_A")]
        for module in adapters:
            module.lora_A.requires_grad_(True)
            module.lora_B.requires_grad_(True)
        with torch.amp.autocast(torch_device, dtype=torch.float16):  # expect: TCK311
            output = model(**inputs)[0]
            output.norm().backward()
        for module in adapters:
            assert module.lora_A.grad is not None
            assert module.lora_A.grad.abs().sum() > 0
