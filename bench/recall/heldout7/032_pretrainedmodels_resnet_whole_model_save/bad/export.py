import pretrainedmodels
import torch

SAVE_PATH = "resnet18_imagenet.pt"


def export_backbone():
    m = pretrainedmodels.resnet18(num_classes=1000, pretrained="imagenet")
    m.eval()
    torch.save(m, SAVE_PATH)  # expect: TCK402


def reload_backbone():
    return torch.load(SAVE_PATH, weights_only=False)
