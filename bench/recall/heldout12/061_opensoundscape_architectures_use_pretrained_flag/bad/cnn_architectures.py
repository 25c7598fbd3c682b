import torchvision
from torch import nn


def freeze_params(model):
    for param in model.parameters():
        param.requires_grad = False


def resnet18(num_classes, freeze_feature_extractor=False, use_pretrained=True, num_channels=3):
    model = torchvision.models.resnet18(pretrained=use_pretrained)  # expect: TCK909
    if freeze_feature_extractor:
        freeze_params(model)
    if num_channels != 3:
        model.conv1 = nn.Conv2d(num_channels, 64, kernel_size=7, stride=2, padding=3, bias=False)
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


def resnet50(num_classes, freeze_feature_extractor=False, use_pretrained=True, num_channels=3):
    model = torchvision.models.resnet50(pretrained=use_pretrained)  # expect: TCK909
    if freeze_feature_extractor:
        freeze_params(model)
    if num_channels != 3:
        model.conv1 = nn.Conv2d(num_channels, 64, kernel_size=7, stride=2, padding=3, bias=False)
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


def vgg11_bn(num_classes, freeze_feature_extractor=False, use_pretrained=True):
    model = torchvision.models.vgg11_bn(pretrained=use_pretrained)  # expect: TCK909
    if freeze_feature_extractor:
        freeze_params(model)
    model.classifier[6] = nn.Linear(model.classifier[6].in_features, num_classes)
    return model


ARCH_DICT = {"resnet18": resnet18, "resnet50": resnet50, "vgg11_bn": vgg11_bn}
