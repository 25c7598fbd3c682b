import torch
import torch.nn as nn
import torchvision
from torchvision.ops import roi_align


class CropScorer(nn.Module):
    """Scores candidate crops of an image: MobileNetV2 features, RoIAlign on each crop box, small MLP head."""

    def __init__(self, align_size=9, reduced_dim=8, pretrained=True):
        super().__init__()
        weights = torchvision.models.MobileNet_V2_Weights.DEFAULT if pretrained else None
        self.backbone = torchvision.models.mobilenet_v2(weights=weights).features[:14]
        self.reduce = nn.Sequential(nn.Conv2d(96, reduced_dim, 1), nn.BatchNorm2d(reduced_dim), nn.ReLU(inplace=True))
        self.align_size = align_size
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(reduced_dim * align_size * align_size, 768), nn.ReLU(inplace=True), nn.Dropout(0.5),
            nn.Linear(768, 1),
        )

    def forward(self, image, boxes):
        feat = self.reduce(self.backbone(image))
        crops = roi_align(feat, boxes, output_size=self.align_size, spatial_scale=1.0 / 16, aligned=True)
        return self.head(crops)


def build_crop_model(align_size=9, reduced_dim=8, pretrained=True):
    return CropScorer(align_size, reduced_dim, pretrained)
