import torch

from models import get_model


class PFATrainer:
    def __init__(self, opt):
        self.opt = opt
        self.model = get_model(self.opt)
        checkpoint = torch.load(self.opt["source_model_path"], map_location="cpu", weights_only=True)
        self.model.load_state_dict(checkpoint)
        self.model = self.model.to(self.opt["gpu_id"])
        self.source_prototypes = self.model.outc.conv.weight.view(-1, self.opt["output_dim"])
        self.model.outc.requires_grad_(False)
        self.optimizer = torch.optim.Adam(
            (p for p in self.model.parameters() if p.requires_grad), lr=self.opt["lr"]
        )
