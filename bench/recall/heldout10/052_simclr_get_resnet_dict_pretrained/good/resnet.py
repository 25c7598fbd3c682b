import torchvision
from torchvision.models import ResNet18_Weights, ResNet50_Weights


def get_resnet(name, pretrained=False):
    resnets = {
        "resnet18": torchvision.models.resnet18(weights=ResNet18_Weights.DEFAULT if pretrained else None),
        "resnet50": torchvision.models.resnet50(weights=ResNet50_Weights.DEFAULT if pretrained else None),
    }
    if name not in resnets:
        raise KeyError(f"{name} is not a valid ResNet version")
    return resnets[name]
