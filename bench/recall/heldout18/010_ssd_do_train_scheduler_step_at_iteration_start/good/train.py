import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from lr_scheduler import WarmupMultiStepLR
from trainer import do_train


class SSDDetector(nn.Module):
    def __init__(self, num_classes=21, num_anchors=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.ReLU())
        self.cls_head = nn.Conv2d(128, num_anchors * num_classes, 3, padding=1)
        self.reg_head = nn.Conv2d(128, num_anchors * 4, 3, padding=1)
        self.num_classes = num_classes

    def forward(self, images, targets=None):
        feat = self.backbone(images)
        cls = self.cls_head(feat).flatten(1)
        reg = self.reg_head(feat).flatten(1)
        if targets is None:
            return cls, reg
        return {
            "cls_loss": F.binary_cross_entropy_with_logits(cls, targets[:, : cls.size(1)]),
            "reg_loss": F.smooth_l1_loss(reg, torch.zeros_like(reg)),
        }


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SSDDetector().to(device)
    dataset = TensorDataset(torch.randn(512, 3, 64, 64), torch.rand(512, 21 * 6 * 16 * 16).round())
    loader = DataLoader(dataset, batch_size=32, shuffle=True, drop_last=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    scheduler = WarmupMultiStepLR(optimizer, milestones=[80000, 100000], warmup_iters=500)
    do_train(model, loader, optimizer, scheduler, device)


if __name__ == "__main__":
    main()
