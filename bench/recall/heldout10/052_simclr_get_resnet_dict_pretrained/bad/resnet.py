import torchvision


def get_resnet(name, pretrained=False):
    resnets = {
        "resnet18": torchvision.models.resnet18(pretrained=pretrained),  # expect: TCK909
        "resnet50": torchvision.models.resnet50(pretrained=pretrained),  # expect: TCK909
    }
    if name not in resnets:
        raise KeyError(f"{name} is not a valid ResNet version")
    return resnets[name]
