import torch
from torch import nn

from components import Transformer


class FeatureExtractor(nn.Module):
    def __init__(self, out_dim=512):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, out_dim, 10, stride=5), nn.GELU(),
            nn.Conv1d(out_dim, out_dim, 3, stride=2), nn.GELU(),
        )

    def forward(self, waveform):
        return self.conv(waveform.unsqueeze(1)).transpose(1, 2)


class Wav2Vec2Model(nn.Module):
    def __init__(self, embed_dim=768, num_layers=4):
        super().__init__()
        self.feature_extractor = FeatureExtractor()
        self.projection = nn.Linear(512, embed_dim)
        self.encoder = Transformer(embed_dim=embed_dim, num_layers=num_layers)

    def forward(self, waveform):
        return self.encoder(self.projection(self.feature_extractor(waveform)))


if __name__ == "__main__":
    model = Wav2Vec2Model().eval()
    with torch.inference_mode():
        print(model(torch.randn(2, 16000)).shape)
