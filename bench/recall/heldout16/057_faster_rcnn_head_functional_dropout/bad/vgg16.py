import torchvision
from torch import nn

from faster_rcnn import FasterRCNNBase


class VGG16FasterRCNN(FasterRCNNBase):
    def _init_modules(self):
        vgg = torchvision.models.vgg16(weights=None)
        self.RCNN_base = nn.Sequential(*list(vgg.features.children())[:-1])
        self.RCNN_fc6 = nn.Linear(512 * self.pooling_size * self.pooling_size, 4096)
        self.RCNN_fc7 = nn.Linear(4096, 4096)
        self.RCNN_cls_score = nn.Linear(4096, self.n_classes)
        self.RCNN_bbox_pred = nn.Linear(4096, 4 * self.n_classes)
