import copy

import torch
from torch import nn


class SepHead(nn.Module):
    """One small conv tower per regression target (heatmap, offset, height, size, rotation)."""

    def __init__(self, in_channels, heads, head_conv=64, final_kernel=3, init_bias=-2.19, bn=True):
        super().__init__()
        self.heads = heads
        self.init_bias = init_bias
        for name, (out_channels, num_conv) in self.heads.items():
            layers = []
            c_in = in_channels
            for _ in range(num_conv - 1):
                layers.append(nn.Conv2d(c_in, head_conv, final_kernel, padding=final_kernel // 2))
                if bn:
                    layers.append(nn.BatchNorm2d(head_conv))
                layers.append(nn.ReLU())
                c_in = head_conv
            layers.append(nn.Conv2d(c_in, out_channels, final_kernel, padding=final_kernel // 2))
            self.add_module(name, nn.Sequential(*layers))

    def init_weights(self):
        for name in self.heads:
            tower = getattr(self, name)
            if name == "hm":
                tower[-1].bias.data.fill_(self.init_bias)

    def forward(self, x):
        return {name: getattr(self, name)(x) for name in self.heads}


class CenterHead(nn.Module):
    """CenterPoint dense head: a shared conv, then one SepHead per task group of classes."""

    def __init__(self, model_cfg, input_channels, num_class, class_names, grid_size, voxel_size,
                 point_cloud_range, predict_boxes_when_training=True, **kwargs):
        super().__init__()
        self.model_cfg = model_cfg
        self.num_class = num_class
        self.grid_size = grid_size
        self.voxel_size = voxel_size
        self.point_cloud_range = point_cloud_range
        self.predict_boxes_when_training = predict_boxes_when_training
        self.num_classes = [len(task["class_names"]) for task in model_cfg["TASKS"]]
        self.class_names = [task["class_names"] for task in model_cfg["TASKS"]]
        self.forward_ret_dict = {}

        share_channels = model_cfg["SHARE_CONV_CHANNEL"]
        self.shared_conv = nn.Sequential(
            nn.Conv2d(input_channels, share_channels, 3, padding=1),
            nn.BatchNorm2d(share_channels),
            nn.ReLU(inplace=True),
        )
        self.task_heads = nn.ModuleList()
        for num_cls in self.num_classes:
            heads = copy.deepcopy(model_cfg["COMMON_HEADS"])
            heads["hm"] = (num_cls, 2)
            self.task_heads.append(SepHead(share_channels, heads))
        self.hm_loss = nn.BCEWithLogitsLoss()
        self.reg_loss = nn.L1Loss()

    def assign_target(self, gt_boxes):
        batch, _, h, w = self.forward_ret_dict["multi_head_features"][0]["hm"].shape
        heatmaps = [torch.zeros(batch, n, h, w, device=gt_boxes.device) for n in self.num_classes]
        return {"heatmaps": heatmaps}

    def forwad(self, data_dict):  # expect: TCK607
        features = self.shared_conv(data_dict["spatial_features_2d"])
        self.forward_ret_dict["multi_head_features"] = [head(features) for head in self.task_heads]

        if self.training:
            self.forward_ret_dict.update(self.assign_target(data_dict["gt_boxes"]))
        if not self.training or self.predict_boxes_when_training:
            data_dict = self.generate_predicted_boxes(data_dict)
        return data_dict

    def get_loss(self):
        loss = 0.0
        for task_id, preds in enumerate(self.forward_ret_dict["multi_head_features"]):
            loss = loss + self.hm_loss(preds["hm"], self.forward_ret_dict["heatmaps"][task_id])
            loss = loss + self.reg_loss(preds["reg"], torch.zeros_like(preds["reg"]))
        return loss, {"loss_rpn": loss.item()}

    @torch.no_grad()
    def generate_predicted_boxes(self, data_dict):
        pred_dicts = []
        for preds in self.forward_ret_dict["multi_head_features"]:
            scores, labels = preds["hm"].sigmoid().flatten(2).max(dim=1)
            pred_dicts.append({"pred_scores": scores, "pred_labels": labels + 1})
        data_dict["pred_dicts"] = pred_dicts
        return data_dict
