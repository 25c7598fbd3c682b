import torch
import torch.nn as nn

from models.detect import DetectHead


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.ModuleList(
            [nn.Conv2d(3, 32, 3, 8, 1), nn.Conv2d(32, 64, 3, 2, 1), nn.Conv2d(64, 128, 3, 2, 1)]
        )
        anchors = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]
        self.head = DetectHead(num_classes=20, anchors=anchors, channels=(32, 64, 128))

    def forward(self, x):
        feats = []
        for conv in self.backbone:
            x = torch.relu(conv(x))
            feats.append(x)
        return self.head(feats)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinyDetector().to(device).eval()
    with torch.no_grad():
        for _ in range(3):
            images = torch.rand(2, 3, 256, 256, device=device)
            preds = model(images)
            print([p.shape for p in preds])


if __name__ == "__main__":
    main()
