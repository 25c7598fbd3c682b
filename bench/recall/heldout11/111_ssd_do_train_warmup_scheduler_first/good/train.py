import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from lr_scheduler import make_lr_scheduler
from trainer import do_train


class TinySSD(nn.Module):
    def __init__(self, num_classes=21, num_anchors=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        self.cls_head = nn.Conv2d(64, num_anchors * num_classes, 3, padding=1)
        self.reg_head = nn.Conv2d(64, num_anchors * 4, 3, padding=1)
        self.num_classes = num_classes

    def forward(self, images, targets=None):
        feats = self.backbone(images)
        cls_logits = self.cls_head(feats).permute(0, 2, 3, 1).reshape(images.size(0), -1, self.num_classes)
        bbox_pred = self.reg_head(feats).permute(0, 2, 3, 1).reshape(images.size(0), -1, 4)
        labels = targets[:, : cls_logits.size(1)]
        return {
            "cls_loss": F.cross_entropy(cls_logits.reshape(-1, self.num_classes), labels.reshape(-1)),
            "reg_loss": F.smooth_l1_loss(bbox_pred, torch.zeros_like(bbox_pred)),
        }


def main():
    cfg = {"lr": 1e-3, "lr_steps": [80000, 100000], "gamma": 0.1, "warmup_factor": 1.0 / 3, "warmup_iters": 500}
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinySSD().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=5e-4)
    scheduler = make_lr_scheduler(cfg, optimizer)
    data = TensorDataset(torch.randn(64, 3, 64, 64), torch.randint(0, 21, (64, 1536)))
    loader = DataLoader(data, batch_size=8, shuffle=True, num_workers=2)
    do_train(cfg, model, loader, optimizer, scheduler, device, {"iteration": 0})


if __name__ == "__main__":
    main()
