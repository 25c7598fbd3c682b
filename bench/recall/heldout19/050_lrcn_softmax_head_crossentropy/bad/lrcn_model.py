import torch.nn as nn
from torchvision import models


class FrameEncoder(nn.Module):
    def __init__(self, latent_dim):
        super().__init__()
        self.backbone = models.resnet18(weights=None)
        self.backbone.fc = nn.Linear(self.backbone.fc.in_features, latent_dim)

    def forward(self, x):
        return self.backbone(x)


class ConvLstmClassifier(nn.Module):
    def __init__(self, latent_dim, hidden_size, num_layers, n_class):
        super().__init__()
        self.encoder = FrameEncoder(latent_dim)
        self.lstm = nn.LSTM(latent_dim, hidden_size, num_layers=num_layers, batch_first=True)
        self.head = nn.Sequential(
            nn.Linear(hidden_size, n_class),
            nn.Softmax(dim=-1),
        )

    def forward(self, clips):
        b, t, c, h, w = clips.shape
        feats = self.encoder(clips.view(b * t, c, h, w)).view(b, t, -1)
        seq, _ = self.lstm(feats)
        return self.head(seq[:, -1, :])
