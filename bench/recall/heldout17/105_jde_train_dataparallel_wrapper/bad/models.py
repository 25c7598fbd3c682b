import torch
import torch.nn as nn
import torch.nn.functional as F


class JDETiny(nn.Module):
    """Toy joint detection + embedding head; forward returns the loss when targets are given."""

    loss_names = ["box", "conf", "id", "loss", "nT"]

    def __init__(self, n_ids=1000, emb_dim=128):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1),
            nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.LeakyReLU(0.1),
        )
        self.box_head = nn.Conv2d(64, 4, 1)
        self.conf_head = nn.Conv2d(64, 1, 1)
        self.emb_head = nn.Conv2d(64, emb_dim, 1)
        self.classifier = nn.Linear(emb_dim, n_ids)

    def forward(self, imgs, targets, target_ids):
        f = self.backbone(imgs)
        box = self.box_head(f).mean(dim=(2, 3))
        conf = self.conf_head(f).mean(dim=(2, 3)).squeeze(1)
        emb = F.normalize(self.emb_head(f).mean(dim=(2, 3)), dim=1)
        lbox = F.smooth_l1_loss(box, targets[:, :4])
        lconf = F.binary_cross_entropy_with_logits(conf, targets[:, 4])
        lid = F.cross_entropy(self.classifier(emb), target_ids)
        loss = lbox + lconf + lid
        components = torch.stack([lbox, lconf, lid, loss, torch.tensor(float(len(targets)), device=loss.device)])
        return loss.unsqueeze(0), components.detach()
