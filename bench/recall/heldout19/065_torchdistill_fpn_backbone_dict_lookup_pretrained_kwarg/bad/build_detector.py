import torch
from torchvision.models.detection import FasterRCNN

from resnet_backbone import custom_resnet_fpn_backbone


def build_model(config):
    backbone = custom_resnet_fpn_backbone(config["backbone_key"], config["backbone_params"])
    return FasterRCNN(backbone, num_classes=config["num_classes"])


def main():
    config = {
        "backbone_key": "custom_resnet50",
        "backbone_params": {
            "pretrained": True,
            "trainable_backbone_layers": 3,
            "layer1": {"bottleneck_channel": 3},
        },
        "num_classes": 91,
    }
    model = build_model(config)
    model.eval()
    with torch.no_grad():
        outputs = model([torch.rand(3, 480, 640)])
    print(outputs[0]["boxes"].shape)


if __name__ == "__main__":
    main()
