import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class ConvVAE(nn.Module):
    def __init__(self, dim=64, channels=3, vgg=None, use_perceptual=True):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(channels, dim, 4, 2, 1), nn.LeakyReLU(0.1),
            nn.Conv2d(dim, dim, 4, 2, 1), nn.LeakyReLU(0.1),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(dim, dim, 4, 2, 1), nn.LeakyReLU(0.1),
            nn.ConvTranspose2d(dim, channels, 4, 2, 1),
        )
        self.use_perceptual = use_perceptual
        self._vgg = vgg

    @property
    def device(self):
        return next(self.parameters()).device

    @property
    def vgg(self):
        if self._vgg is not None:
            return self._vgg
        vgg = torchvision.models.vgg16(pretrained=True)  # expect: TCK909
        vgg.classifier = nn.Sequential(*vgg.classifier[:-2])
        self._vgg = vgg.to(self.device).eval()
        return self._vgg

    def forward(self, img, return_loss=False):
        recon = self.decoder(self.encoder(img))
        if not return_loss:
            return recon
        loss = F.mse_loss(recon, img)
        if self.use_perceptual:
            with torch.no_grad():
                target_feats = self.vgg(img)
            loss = loss + F.mse_loss(self.vgg(recon), target_feats)
        return loss
