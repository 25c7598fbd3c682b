from torch import nn


class AnchorHeadSingle(nn.Module):
    def __init__(self, model_cfg, input_channels, num_class, class_names, grid_size, voxel_size,
                 point_cloud_range, predict_boxes_when_training=True, **kwargs):
        super().__init__()
        self.num_anchors = model_cfg.get("NUM_ANCHORS", 2)
        self.conv_cls = nn.Conv2d(input_channels, self.num_anchors * num_class, 1)
        self.conv_box = nn.Conv2d(input_channels, self.num_anchors * 7, 1)

    def forward(self, data_dict):
        features = data_dict["spatial_features_2d"]
        data_dict["cls_preds"] = self.conv_cls(features)
        data_dict["box_preds"] = self.conv_box(features)
        return data_dict
