import torch

from models.hrnet import HRNet


class Train:
    def __init__(self, device, model_c=48, nof_joints=17, pretrained_weight_path=None):
        self.device = device
        self.model = HRNet(c=model_c, nof_joints=nof_joints).to(device)
        if pretrained_weight_path is not None:
            weights = torch.load(pretrained_weight_path, map_location=device, weights_only=True)
            self.model.load_state_dict(weights, strict=False)  # expect: TCK403
        self.optim = torch.optim.Adam(self.model.parameters(), lr=1e-3)
