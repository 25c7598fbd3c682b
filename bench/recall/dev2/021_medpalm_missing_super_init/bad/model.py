import torch
from torch import nn


class ViTEncoder(nn.Module):
    def __init__(self, image_size=256, patch_size=32, dim=512, depth=6, heads=8):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        layer = nn.TransformerEncoderLayer(dim, heads, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        return self.blocks(x)


class MedPalm(nn.Module):
    def __init__(self, num_tokens=20000, dim=512, depth=6, heads=8):  # expect: TCK603
        self.encoder = ViTEncoder(dim=dim, depth=depth, heads=heads)
        self.embed = nn.Embedding(num_tokens, dim)
        layer = nn.TransformerDecoderLayer(dim, heads, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, depth)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, img, text):
        encoded = self.encoder(img)
        x = self.embed(text)
        return self.to_logits(self.decoder(x, encoded))


model = MedPalm()
