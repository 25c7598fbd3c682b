import torch
from torch import nn


class TabTransformer(nn.Module):
    def __init__(self, n_features=100, d_model=128, n_classes=10, n_layers=4):
        super().__init__()
        self.x_encoder = nn.Linear(n_features, d_model)
        self.y_encoder = nn.Linear(1, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 256, batch_first=False)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.decoder = nn.Linear(d_model, n_classes)

    def forward(self, x, y, single_eval_pos):
        x_emb = self.x_encoder(x)
        y_emb = self.y_encoder(y.unsqueeze(-1).float())
        train_part = x_emb[:single_eval_pos] + y_emb[:single_eval_pos]
        src = torch.cat([train_part, x_emb[single_eval_pos:]], dim=0)
        return self.decoder(self.encoder(src))[single_eval_pos:]
