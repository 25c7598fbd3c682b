import time

import torch
import torchvision.models as models

import intel_extension_for_pytorch as ipex


def main():
    model = models.resnet50(weights=None)
    model.eval()
    data = torch.rand(1, 3, 224, 224)

    model.to("xpu")
    data.to("xpu")  # expect: TCK202
    model = ipex.optimize(model)

    with torch.no_grad():
        start = time.time()
        for _ in range(10):
            logits = model(data)
        torch.xpu.synchronize()
        print("top-1:", logits.argmax(1).item(), "latency:", (time.time() - start) / 10)


if __name__ == "__main__":
    main()
