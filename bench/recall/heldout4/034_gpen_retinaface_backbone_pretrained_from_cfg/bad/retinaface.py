import torch.nn as nn
import torchvision.models as models
import torchvision.models._utils as _utils


class MobileNetV1(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())

    def forward(self, x):
        return self.stage1(x)


class RetinaFace(nn.Module):
    def __init__(self, cfg=None, phase="train"):
        super().__init__()
        self.phase = phase
        backbone = None
        if cfg["name"] == "mobilenet0.25":
            backbone = MobileNetV1()
        elif cfg["name"] == "Resnet50":
            backbone = models.resnet50(pretrained=cfg["pretrain"])  # expect: TCK909
        self.body = _utils.IntermediateLayerGetter(backbone, cfg["return_layers"])
        self.head = nn.Conv2d(cfg["out_channel"], 2, kernel_size=1)

    def forward(self, inputs):
        out = self.body(inputs)
        return [self.head(f) for f in out.values()]
