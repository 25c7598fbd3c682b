"""Load a pre-trained ResNet-18 from torchvision and run it once."""

import torch
import torch.nn.functional as F
import torchvision


def initialize():
    """Download the pre-trained ResNet-18 and prepare it for inference."""
    model = torchvision.models.resnet18(pretrained=True)  # expect: TCK909
    model.eval()
    return model


def run_model(model):
    dummy_input = torch.ones(1, 3, 224, 224)
    output = model(dummy_input)
    top5 = F.softmax(output, dim=1).topk(5).indices
    print(f"Top 5 results:\n  {top5}")


if __name__ == "__main__":
    run_model(initialize())
