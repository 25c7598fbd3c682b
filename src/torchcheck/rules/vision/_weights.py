"""What torchvision's model builders did with the legacy ``pretrained=True`` argument.

Derived from the ``@handle_legacy_interface(weights=("pretrained", <default>), ...)``
decorator of every model builder in torchvision 0.29 (``torchvision/models/**``): the
default is the weights enum member ``pretrained=True`` has loaded since torchvision 0.13,
so ``weights=<that member>`` builds exactly the same model. Builders are keyed by their
defining module under ``torchvision.models`` (``"detection.faster_rcnn.fasterrcnn_resnet50_fpn"``);
each is also re-exported by its package (``torchvision.models.detection``).

The tables are written one line per module: torchvision names every builder after its weights
enum in lower case (``ResNet50_Weights`` -> ``resnet50``), so a module lists its enums' stems.
"""

from __future__ import annotations

# module -> the stems of its builders' weights enums (`ResNet50` for `ResNet50_Weights`); `pretrained=True`
# selects the module's default member (`_MEMBERS`) unless the stem names another (`Raft_Large.C_T_SKHT_V2`).
# A lower-case stem is a builder without pretrained weights (`pretrained=True` raises).
_MODULES = {
    "alexnet": "AlexNet",
    "convnext": "ConvNeXt_Base ConvNeXt_Large ConvNeXt_Small ConvNeXt_Tiny",
    "densenet": "DenseNet121 DenseNet161 DenseNet169 DenseNet201",
    "detection.faster_rcnn": "FasterRCNN_MobileNet_V3_Large_320_FPN FasterRCNN_MobileNet_V3_Large_FPN FasterRCNN_ResNet50_FPN FasterRCNN_ResNet50_FPN_V2",
    "detection.fcos": "FCOS_ResNet50_FPN",
    "detection.keypoint_rcnn": "KeypointRCNN_ResNet50_FPN",
    "detection.mask_rcnn": "MaskRCNN_ResNet50_FPN MaskRCNN_ResNet50_FPN_V2",
    "detection.retinanet": "RetinaNet_ResNet50_FPN RetinaNet_ResNet50_FPN_V2",
    "detection.ssd": "SSD300_VGG16",
    "detection.ssdlite": "SSDLite320_MobileNet_V3_Large",
    "efficientnet": "EfficientNet_B0 EfficientNet_B1 EfficientNet_B2 EfficientNet_B3 EfficientNet_B4 EfficientNet_B5 EfficientNet_B6 EfficientNet_B7 EfficientNet_V2_L EfficientNet_V2_M EfficientNet_V2_S",
    "googlenet": "GoogLeNet",
    "inception": "Inception_V3",
    "maxvit": "MaxVit_T",
    "mnasnet": "MNASNet0_5 MNASNet0_75 MNASNet1_0 MNASNet1_3",
    "mobilenetv2": "MobileNet_V2",
    "mobilenetv3": "MobileNet_V3_Large MobileNet_V3_Small",
    "optical_flow.raft": "Raft_Large.C_T_SKHT_V2 Raft_Small.C_T_V2",
    "quantization.googlenet": "GoogLeNet",
    "quantization.inception": "Inception_V3",
    "quantization.mobilenetv2": "MobileNet_V2",
    "quantization.mobilenetv3": "MobileNet_V3_Large",
    "quantization.resnet": "ResNet18 ResNet50 ResNeXt101_32X8D ResNeXt101_64X4D",
    "quantization.shufflenetv2": "ShuffleNet_V2_X0_5 ShuffleNet_V2_X1_0 ShuffleNet_V2_X1_5 ShuffleNet_V2_X2_0",
    "regnet": "RegNet_X_16GF RegNet_X_1_6GF RegNet_X_32GF RegNet_X_3_2GF RegNet_X_400MF RegNet_X_800MF RegNet_X_8GF regnet_y_128gf RegNet_Y_16GF RegNet_Y_1_6GF RegNet_Y_32GF RegNet_Y_3_2GF RegNet_Y_400MF RegNet_Y_800MF RegNet_Y_8GF",
    "resnet": "ResNet101 ResNet152 ResNet18 ResNet34 ResNet50 ResNeXt101_32X8D ResNeXt101_64X4D ResNeXt50_32X4D Wide_ResNet101_2 Wide_ResNet50_2",
    "segmentation.deeplabv3": "DeepLabV3_MobileNet_V3_Large DeepLabV3_ResNet101 DeepLabV3_ResNet50",
    "segmentation.fcn": "FCN_ResNet101 FCN_ResNet50",
    "segmentation.lraspp": "LRASPP_MobileNet_V3_Large",
    "shufflenetv2": "ShuffleNet_V2_X0_5 ShuffleNet_V2_X1_0 ShuffleNet_V2_X1_5 ShuffleNet_V2_X2_0",
    "squeezenet": "SqueezeNet1_0 SqueezeNet1_1",
    "swin_transformer": "Swin_B Swin_S Swin_T Swin_V2_B Swin_V2_S Swin_V2_T",
    "vgg": "VGG11 VGG11_BN VGG13 VGG13_BN VGG16 VGG16_BN VGG19 VGG19_BN",
    "video.mvit": "MViT_V1_B MViT_V2_S",
    "video.resnet": "MC3_18 R2Plus1D_18 R3D_18",
    "video.s3d": "S3D",
    "video.swin_transformer": "Swin3D_B Swin3D_S Swin3D_T",
    "vision_transformer": "ViT_B_16 ViT_B_32 vit_h_14 ViT_L_16 ViT_L_32",
}
# a package -> the member its builders' `pretrained=True` selects (IMAGENET1K_V1 elsewhere)
_MEMBERS = {"detection": "COCO_V1", "segmentation": "COCO_WITH_VOC_LABELS_V1", "video": "KINETICS400_V1"}
# the weights `pretrained_backbone=True` selects for `weights_backbone=` -> the detection and segmentation builders
_BACKBONES = {
    "MobileNet_V3_Large_Weights.IMAGENET1K_V1": "fasterrcnn_mobilenet_v3_large_320_fpn fasterrcnn_mobilenet_v3_large_fpn ssdlite320_mobilenet_v3_large deeplabv3_mobilenet_v3_large lraspp_mobilenet_v3_large",
    "ResNet50_Weights.IMAGENET1K_V1": "fasterrcnn_resnet50_fpn fasterrcnn_resnet50_fpn_v2 fcos_resnet50_fpn keypointrcnn_resnet50_fpn maskrcnn_resnet50_fpn maskrcnn_resnet50_fpn_v2 retinanet_resnet50_fpn retinanet_resnet50_fpn_v2 deeplabv3_resnet50 fcn_resnet50",
    "ResNet101_Weights.IMAGENET1K_V1": "deeplabv3_resnet101 fcn_resnet101",
    "VGG16_Weights.IMAGENET1K_FEATURES": "ssd300_vgg16",
}


def _weights(module: str, stem: str) -> str | None:
    if stem.islower():
        return None
    enum, _, member = stem.partition(".")
    return f"{enum}_Weights.{member or _MEMBERS.get(module.split('.')[0], 'IMAGENET1K_V1')}"


# builder -> the weights `pretrained=True` selects (None: the builder has no pretrained weights
# and `pretrained=True` raises)
PRETRAINED: dict[str, str | None] = {
    f"{module}.{stem.partition('.')[0].lower()}": _weights(module, stem) for module, stems in _MODULES.items() for stem in stems.split()
}
_BY_NAME = {builder.rsplit(".", 1)[1]: builder for builder in PRETRAINED if builder.startswith(("detection", "segmentation"))}
# builder -> the weights `pretrained_backbone=True` selects for `weights_backbone=`
PRETRAINED_BACKBONE: dict[str, str] = {_BY_NAME[name]: weights for weights, names in _BACKBONES.items() for name in names.split()}
# quantizable builders: the weights `pretrained=True` selects together with `quantize=True` (torchvision
# ships QNNPACK weights for the mobilenets, FBGEMM ones for the others)
QUANTIZED: dict[str, str] = {
    builder: weights.replace("_Weights.IMAGENET1K", "_QuantizedWeights.IMAGENET1K_QNNPACK" if "mobilenet" in builder else "_QuantizedWeights.IMAGENET1K_FBGEMM")
    for builder, weights in PRETRAINED.items()
    if builder.startswith("quantization.") and weights is not None
}

# backbone helpers whose `pretrained=True` weights depend on `backbone_name=`; `weights` is
# their second parameter (after `backbone_name`)
BY_BACKBONE_NAME = frozenset({"detection.backbone_utils.mobilenet_backbone", "detection.backbone_utils.resnet_fpn_backbone"})

# weights enum -> its defining module under torchvision.models (also exported by that module's package)
ENUM_MODULES: dict[str, str] = {
    f"{stem.partition('.')[0]}{'_Quantized' if module.startswith('quantization.') else '_'}Weights": module
    for module, stems in _MODULES.items()
    for stem in stems.split()
    if not stem.islower()
}
