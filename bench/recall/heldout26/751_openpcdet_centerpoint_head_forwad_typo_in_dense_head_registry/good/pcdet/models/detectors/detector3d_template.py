from torch import nn

from .. import backbones_2d, dense_heads


class Detector3DTemplate(nn.Module):
    """Builds the detector's stages by name from the config and registers each one."""

    def __init__(self, model_cfg, num_class, dataset):
        super().__init__()
        self.model_cfg = model_cfg
        self.num_class = num_class
        self.dataset = dataset
        self.class_names = dataset.class_names
        self.module_topology = ["backbone_2d", "dense_head"]

    def build_networks(self):
        info = {"module_list": [], "num_bev_features": self.model_cfg["NUM_BEV_FEATURES"]}
        for name in self.module_topology:
            module, info = getattr(self, "build_%s" % name)(info)
            self.add_module(name, module)
        return info["module_list"]

    def build_backbone_2d(self, info):
        cfg = self.model_cfg["BACKBONE_2D"]
        module = backbones_2d.__all__[cfg["NAME"]](model_cfg=cfg, input_channels=info["num_bev_features"])
        info["num_bev_features"] = module.num_bev_features
        info["module_list"].append(module)
        return module, info

    def build_dense_head(self, info):
        cfg = self.model_cfg["DENSE_HEAD"]
        module = dense_heads.__all__[cfg["NAME"]](
            model_cfg=cfg,
            input_channels=info["num_bev_features"],
            num_class=self.num_class,
            class_names=self.class_names,
            grid_size=self.dataset.grid_size,
            voxel_size=self.dataset.voxel_size,
            point_cloud_range=self.dataset.point_cloud_range,
            predict_boxes_when_training=False,
        )
        info["module_list"].append(module)
        return module, info
