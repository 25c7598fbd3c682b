from detectron2.modeling import META_ARCH_REGISTRY
from detectron2.modeling.meta_arch.rcnn import GeneralizedRCNN

from text_encoder import TextFeatureExtractor

PROCESSED_IMAGE_SIZE = (768, 1024)


@META_ARCH_REGISTRY.register()
class MultiModalRCNN(GeneralizedRCNN):
    """Faster R-CNN whose FPN features are summed with features computed from a caption."""

    def __init__(self, *, backbone, proposal_generator, roi_heads, pixel_mean, pixel_std, input_format=None, vis_period=0):
        super().__init__(
            backbone=backbone,
            proposal_generator=proposal_generator,
            roi_heads=roi_heads,
            pixel_mean=pixel_mean,
            pixel_std=pixel_std,
            input_format=input_format,
            vis_period=vis_period,
        )
        shapes = self.backbone.output_shape()
        last = self.backbone._out_features[-1]
        stride = shapes[last].stride
        smallest = (PROCESSED_IMAGE_SIZE[0] // stride, PROCESSED_IMAGE_SIZE[1] // stride)
        self.text_encoder = TextFeatureExtractor(
            embed_dim=384,
            expected_output_shape=(shapes[last].channels, smallest[0], smallest[1]),
            fpn_keys=self.backbone._out_features,
            device="cuda",
        )

    def forward(self, batched_inputs):
        if not self.training:
            return self.inference(batched_inputs)
        images = self.preprocess_image(batched_inputs)
        gt_instances = [x["instances"].to(self.device) for x in batched_inputs]
        features = self.backbone(images.tensor)
        text_features = self.text_encoder(
            [x["caption"] for x in batched_inputs], {k: v.shape for k, v in features.items()}
        )
        features = {k: features[k] + text_features[k] for k in features}
        proposals, proposal_losses = self.proposal_generator(images, features, gt_instances)
        _, detector_losses = self.roi_heads(images, features, proposals, gt_instances)
        return {**detector_losses, **proposal_losses}
