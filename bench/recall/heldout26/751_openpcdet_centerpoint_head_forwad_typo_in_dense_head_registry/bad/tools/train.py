"""Train CenterPoint on BEV feature maps (the dense head is chosen by name in the config)."""
from types import SimpleNamespace

import torch

from pcdet.models.detectors import build_detector

MODEL_CFG = {
    "NAME": "CenterPoint",
    "NUM_BEV_FEATURES": 64,
    "BACKBONE_2D": {"NAME": "BaseBEVBackbone", "NUM_FILTERS": 128},
    "DENSE_HEAD": {
        "NAME": "CenterHead",
        "SHARE_CONV_CHANNEL": 64,
        "TASKS": [{"class_names": ["Vehicle"]}, {"class_names": ["Pedestrian", "Cyclist"]}],
        "COMMON_HEADS": {"reg": (2, 2), "height": (1, 2), "dim": (3, 2), "rot": (2, 2)},
    },
}

dataset = SimpleNamespace(
    class_names=["Vehicle", "Pedestrian", "Cyclist"],
    grid_size=(188, 188, 1),
    voxel_size=(0.4, 0.4, 6.0),
    point_cloud_range=(-75.2, -75.2, -2.0, 75.2, 75.2, 4.0),
)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_detector(MODEL_CFG, num_class=3, dataset=dataset).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)

model.train()
for it in range(10):
    batch = {
        "spatial_features": torch.randn(2, 64, 188, 188, device=device),
        "gt_boxes": torch.zeros(2, 5, 8, device=device),
    }
    ret_dict, tb_dict, _ = model(batch)
    optimizer.zero_grad()
    ret_dict["loss"].backward()
    optimizer.step()
    print(it, tb_dict["loss_rpn"])
