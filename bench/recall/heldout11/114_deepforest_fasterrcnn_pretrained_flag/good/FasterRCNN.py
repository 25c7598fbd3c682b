import torchvision
from torchvision.models.detection import FasterRCNN_ResNet50_FPN_Weights
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor

from model import Model as BaseModel


class Model(BaseModel):
    def __init__(self, config, **kwargs):
        super().__init__(config)

    def load_backbone(self):
        """A torchvision Faster R-CNN to use as a backbone."""
        backbone = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=FasterRCNN_ResNet50_FPN_Weights.COCO_V1)
        return backbone

    def create_model(self, backbone=None):
        """Create a Faster R-CNN with a new box predictor for config['num_classes']."""
        model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=FasterRCNN_ResNet50_FPN_Weights.COCO_V1)
        in_features = model.roi_heads.box_predictor.cls_score.in_features
        model.roi_heads.box_predictor = FastRCNNPredictor(in_features, num_classes=self.config["num_classes"])
        return model
