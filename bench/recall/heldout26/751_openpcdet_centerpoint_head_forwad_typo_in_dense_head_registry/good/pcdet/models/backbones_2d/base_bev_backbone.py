from torch import nn


class BaseBEVBackbone(nn.Module):
    def __init__(self, model_cfg, input_channels):
        super().__init__()
        out_channels = model_cfg["NUM_FILTERS"]
        self.blocks = nn.Sequential(
            nn.Conv2d(input_channels, out_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )
        self.num_bev_features = out_channels

    def forward(self, data_dict):
        data_dict["spatial_features_2d"] = self.blocks(data_dict["spatial_features"])
        return data_dict
