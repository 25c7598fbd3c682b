import torch

from generate_proposals import GenerateProposals


class RPNHead(torch.nn.Module):
    def __init__(self, channels=256, n_anchors=3):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.cls = torch.nn.Conv2d(channels, n_anchors, 1)
        self.bbox = torch.nn.Conv2d(channels, 4 * n_anchors, 1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return torch.sigmoid(self.cls(x)), self.bbox(x)


class Detector(torch.nn.Module):
    def __init__(self, train=False, spatial_scales=(0.25, 0.125, 0.0625, 0.03125)):
        super().__init__()
        self.rpn = RPNHead()
        self.proposal_generator = [  # expect: TCK601
            GenerateProposals(
                train=train,
                spatial_scale=spatial_scales[i],
                anchor_sizes=(32 * 2 ** i,),
                pre_nms_top_n=12000 if train else 1000,
                post_nms_top_n=2000 if train else 1000,
            )
            for i in range(len(spatial_scales))
        ]

    def forward(self, features, height, width, scale):
        rois = []
        for i, feat in enumerate(features):
            cls_prob, bbox_pred = self.rpn(feat)
            rois.append(self.proposal_generator[i](cls_prob, bbox_pred, height, width, scale))
        return rois
