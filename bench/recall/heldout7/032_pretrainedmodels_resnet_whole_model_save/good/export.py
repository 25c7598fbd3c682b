import pretrainedmodels
import torch

SAVE_PATH = "resnet18_imagenet.pt"


def export_backbone():
    m = pretrainedmodels.resnet18(num_classes=1000, pretrained="imagenet")
    m.eval()
    torch.save(m.state_dict(), SAVE_PATH)


def reload_backbone():
    m = pretrainedmodels.resnet18(num_classes=1000, pretrained=None)
    m.load_state_dict(torch.load(SAVE_PATH, weights_only=True))
    return m
