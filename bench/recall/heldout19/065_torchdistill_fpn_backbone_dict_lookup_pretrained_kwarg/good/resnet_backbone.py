from torch import nn
from torchvision.models import resnet
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.ops import misc as misc_nn_ops


class Bottleneck4SmallResNet(nn.Module):
    def __init__(self, bottleneck_channel):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(64, 64, kernel_size=2, padding=1, bias=False),
            nn.BatchNorm2d(64),
            nn.Conv2d(64, bottleneck_channel, kernel_size=2, padding=1, bias=False),
        )
        self.decoder = nn.Sequential(
            nn.BatchNorm2d(bottleneck_channel),
            nn.ReLU(inplace=True),
            nn.Conv2d(bottleneck_channel, 64, kernel_size=2, bias=False),
            nn.BatchNorm2d(64),
            nn.Conv2d(64, 256, kernel_size=2, bias=False),
            nn.BatchNorm2d(256),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


def custom_resnet_fpn_backbone(backbone_key, backbone_params_config, norm_layer=misc_nn_ops.FrozenBatchNorm2d):
    layer1_config = backbone_params_config.get("layer1", None)
    layer1 = None
    if layer1_config is not None:
        layer1 = Bottleneck4SmallResNet(layer1_config["bottleneck_channel"])

    prefix = "custom_"
    start_idx = backbone_key.find(prefix) + len(prefix)
    org_backbone_key = backbone_key[start_idx:] if backbone_key.startswith(prefix) else backbone_key
    weights = backbone_params_config.get("weights", None)
    backbone = resnet.__dict__[org_backbone_key](
        weights=weights,
        norm_layer=norm_layer,
    )
    if layer1 is not None:
        backbone.layer1 = layer1

    trainable_layers = backbone_params_config.get("trainable_backbone_layers", 4)
    assert 0 <= trainable_layers <= 6
    layers_to_train = ["layer4", "layer3", "layer2", "layer1", "bn1", "conv1"][:trainable_layers]
    for name, parameter in backbone.named_parameters():
        if all(not name.startswith(layer) for layer in layers_to_train):
            parameter.requires_grad_(False)

    returned_layers = backbone_params_config.get("returned_layers", [1, 2, 3, 4])
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_stage2 = backbone.inplanes // 8
    in_channels_list = [in_channels_stage2 * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(backbone, return_layers, in_channels_list, out_channels=256)
