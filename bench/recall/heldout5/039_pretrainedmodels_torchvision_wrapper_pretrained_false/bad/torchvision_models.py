import torch.nn as nn
import torch.utils.model_zoo as model_zoo
import torchvision.models as models

pretrained_settings = {"resnet50": {"imagenet": {"url": "https://download.pytorch.org/models/resnet50-19c8e357.pth", "num_classes": 1000}}}


def load_pretrained(model, num_classes, settings):
    assert num_classes == settings["num_classes"]
    model.load_state_dict(model_zoo.load_url(settings["url"]))
    return model


def resnet50(num_classes=1000, pretrained="imagenet"):
    model = models.resnet50(pretrained=False)  # expect: TCK909
    if pretrained is not None:
        settings = pretrained_settings["resnet50"][pretrained]
        model = load_pretrained(model, num_classes, settings)
    model.last_linear = model.fc
    model.fc = nn.Identity()
    return model
