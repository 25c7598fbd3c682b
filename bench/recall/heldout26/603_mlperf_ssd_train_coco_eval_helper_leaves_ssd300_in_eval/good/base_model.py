import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models.resnet import resnet34


class ResNet34(nn.Module):
    """ResNet-34 trunk up to conv4, with the stride of conv4 removed (38x38 output for 300x300 input)."""

    def __init__(self):
        super().__init__()
        trunk = resnet34(pretrained=True)
        children = list(trunk.children())
        self.layer1 = nn.Sequential(*children[:6])
        self.layer2 = nn.Sequential(*children[6:7])
        first_block = list(self.layer2.children())[0]
        first_block.conv1.stride = (1, 1)
        if first_block.downsample is not None:
            list(first_block.downsample.children())[0].stride = (1, 1)

    def forward(self, data):
        return [self.layer2(self.layer1(data))]


class Loss(nn.Module):
    """SSD loss: smooth-L1 on matched boxes plus cross-entropy with 3:1 hard negative mining."""

    def __init__(self, dboxes):
        super(Loss, self).__init__()
        self.scale_xy = 1.0 / dboxes.scale_xy
        self.scale_wh = 1.0 / dboxes.scale_wh
        self.sl1_loss = nn.SmoothL1Loss(reduction="none")
        self.dboxes = nn.Parameter(dboxes(order="xywh").transpose(0, 1).unsqueeze(dim=0), requires_grad=False)
        self.con_loss = nn.CrossEntropyLoss(reduction="none")

    def _loc_vec(self, loc):
        gxy = self.scale_xy * (loc[:, :2, :] - self.dboxes[:, :2, :]) / self.dboxes[:, 2:, :]
        gwh = self.scale_wh * (loc[:, 2:, :] / self.dboxes[:, 2:, :]).log()
        return torch.cat((gxy, gwh), dim=1).contiguous()

    def forward(self, ploc, plabel, gloc, glabel):
        mask = glabel > 0
        pos_num = mask.sum(dim=1)
        vec_gd = self._loc_vec(gloc)
        sl1 = (self.sl1_loss(ploc, vec_gd).sum(dim=1) * mask.float()).sum(dim=1)

        con = self.con_loss(plabel, glabel)
        con_neg = con.clone()
        con_neg[mask] = 0
        _, con_idx = con_neg.sort(dim=1, descending=True)
        _, con_rank = con_idx.sort(dim=1)
        neg_num = torch.clamp(3 * pos_num, max=mask.size(1)).unsqueeze(-1)
        neg_mask = con_rank < neg_num
        closs = (con * (mask.float() + neg_mask.float())).sum(dim=1)

        total = sl1 + closs
        num_mask = (pos_num > 0).float()
        pos_num = pos_num.float().clamp(min=1e-6)
        return (total * num_mask / pos_num).mean(dim=0)
