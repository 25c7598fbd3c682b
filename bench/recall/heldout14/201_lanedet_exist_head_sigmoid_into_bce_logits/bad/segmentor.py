import torch
from torch import nn
import torch.nn.functional as F
import torchvision

from heads import LaneExistHead, SegDecoder


class LaneSegmentor(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        resnet = torchvision.models.resnet18(weights=None)
        self.backbone = nn.Sequential(*list(resnet.children())[:-2])
        self.decoder = SegDecoder(512, cfg["num_classes"])
        self.exist = LaneExistHead(512, cfg["num_classes"], cfg["feat_h"], cfg["feat_w"])

    def forward(self, img):
        feats = self.backbone(img)
        output = {}
        output.update(self.decoder(feats))
        output.update(self.exist(feats))
        return output

    def loss(self, output, batch):
        weights = torch.ones(self.cfg["num_classes"], device=output["seg"].device)
        weights[0] = self.cfg["bg_weight"]
        seg_criterion = nn.NLLLoss(ignore_index=255, weight=weights)
        exist_criterion = nn.BCEWithLogitsLoss()
        seg_loss = seg_criterion(F.log_softmax(output["seg"], dim=1), batch["mask"].long())
        exist_loss = 0.1 * exist_criterion(output["exist"], batch["lane_exist"].float())  # expect: TCK605
        return seg_loss + exist_loss
