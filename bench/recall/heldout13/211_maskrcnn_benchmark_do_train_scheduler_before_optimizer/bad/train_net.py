import logging

import torch
import torch.nn as nn

from lr_scheduler import WarmupMultiStepLR
from trainer import do_train


class TinyDetector(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.cls = nn.Linear(16, num_classes)
        self.box = nn.Linear(16, 4)

    def forward(self, images, targets):
        feats = self.backbone(images).flatten(1)
        labels = torch.stack([t["labels"][0] for t in targets])
        boxes = torch.stack([t["boxes"][0] for t in targets])
        return {
            "loss_classifier": nn.functional.cross_entropy(self.cls(feats), labels),
            "loss_box_reg": nn.functional.smooth_l1_loss(self.box(feats), boxes),
        }


def make_loader(n=200, batch=4):
    for _ in range(n):
        images = torch.randn(batch, 3, 64, 64)
        targets = [{"boxes": torch.rand(1, 4), "labels": torch.randint(0, 3, (1,))} for _ in range(batch)]
        yield images, targets


class Loader:
    def __len__(self):
        return 200

    def __iter__(self):
        return make_loader()


def main():
    logging.basicConfig(level=logging.INFO)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinyDetector().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    scheduler = WarmupMultiStepLR(optimizer, milestones=[120, 160], warmup_iters=50)
    do_train(model, Loader(), optimizer, scheduler, device, checkpoint_period=100, arguments={"iteration": 0})


if __name__ == "__main__":
    main()
