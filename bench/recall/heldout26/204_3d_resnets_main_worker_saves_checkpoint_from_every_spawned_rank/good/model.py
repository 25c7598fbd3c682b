import torch
from torch import nn


class ResNet3D(nn.Module):
    """A small 3D ResNet stand-in (conv3d stem, two residual stages, global pool, fc)."""

    def __init__(self, n_classes, widths=(64, 128)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(3, widths[0], (3, 7, 7), (1, 2, 2), (1, 3, 3), bias=False),
                                  nn.BatchNorm3d(widths[0]), nn.ReLU(inplace=True))
        self.stage1 = nn.Sequential(nn.Conv3d(widths[0], widths[0], 3, padding=1, bias=False),
                                    nn.BatchNorm3d(widths[0]), nn.ReLU(inplace=True))
        self.stage2 = nn.Sequential(nn.Conv3d(widths[0], widths[1], 3, stride=2, padding=1, bias=False),
                                    nn.BatchNorm3d(widths[1]), nn.ReLU(inplace=True))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(widths[1], n_classes)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.stage1(x)
        x = self.stage2(x)
        return self.fc(self.pool(x).flatten(1))


def generate_model(opt):
    return ResNet3D(opt.n_classes)


def make_data_parallel(model, is_distributed, device):
    if is_distributed:
        if device.type == "cuda" and device.index is not None:
            torch.cuda.set_device(device)
            model.to(device)
            model = nn.parallel.DistributedDataParallel(model, device_ids=[device])
        else:
            model.to(device)
            model = nn.parallel.DistributedDataParallel(model)
    else:
        model.to(device)
    return model
