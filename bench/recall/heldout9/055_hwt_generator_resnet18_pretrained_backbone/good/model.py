import torch
import torch.nn as nn
import torchvision.models as models

from models.blocks import FCNDecoder
from models.transformer import TransformerEncoder, TransformerEncoderLayer

INP_CHANNEL = 15
HIDDEN = 512


class Generator(nn.Module):
    def __init__(self, vocab_size=80):
        super().__init__()
        layer = TransformerEncoderLayer(HIDDEN, 8, HIDDEN, 0.1, "relu", True)
        self.encoder = TransformerEncoder(layer, 3, nn.LayerNorm(HIDDEN))
        self.Feat_Encoder = nn.Sequential(*([nn.Conv2d(INP_CHANNEL, 64, kernel_size=7, stride=2, padding=3, bias=False)] + list(models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1).children())[1:-2]))
        self.query_embed = nn.Embedding(vocab_size, HIDDEN)
        self.DEC = FCNDecoder(res_norm="in")

    def forward(self, style_imgs, query_labels):
        feat = self.Feat_Encoder(style_imgs)
        memory = self.encoder(feat.flatten(2).permute(2, 0, 1))
        queries = self.query_embed(query_labels)
        return self.DEC(memory, queries)
