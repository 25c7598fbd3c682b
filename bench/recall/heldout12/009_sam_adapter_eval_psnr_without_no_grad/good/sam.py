import torch
import torch.nn as nn
import torch.nn.functional as F


class PromptGenerator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.adapter = nn.Sequential(nn.Linear(dim, dim // 4), nn.GELU(), nn.Linear(dim // 4, dim))

    def forward(self, x):
        return x + self.adapter(x)


class SAM(nn.Module):
    def __init__(self, dim=256, lr=2e-4):
        super().__init__()
        self.image_encoder = nn.Sequential(nn.Conv2d(3, dim, 16, 16), nn.GELU())
        self.prompt_generator = PromptGenerator(dim)
        self.mask_decoder = nn.Sequential(nn.Conv2d(dim, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 1, 1))
        for p in self.image_encoder.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW([p for p in self.parameters() if p.requires_grad], lr=lr)
        self.criterion = nn.BCEWithLogitsLoss()

    def forward(self, x):
        feat = self.image_encoder(x)
        feat = self.prompt_generator(feat.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return F.interpolate(self.mask_decoder(feat), size=x.shape[-2:], mode="bilinear", align_corners=False)

    def infer(self, x):
        return self.forward(x)

    def set_input(self, inp, gt):
        self.input = inp
        self.gt_mask = gt

    def optimize_parameters(self):
        self.pred_mask = self.forward(self.input)
        self.loss_G = self.criterion(self.pred_mask, self.gt_mask)
        self.optimizer.zero_grad()
        self.loss_G.backward()
        self.optimizer.step()
