import torch
import torch.nn as nn
import torch.nn.functional as F


class VALLE(nn.Module):
    def __init__(self, d_model=256, nhead=4, num_layers=4, num_text_tokens=512, num_audio_tokens=1024):
        super().__init__()
        self.text_embedding = nn.Embedding(num_text_tokens, d_model)
        self.audio_embedding = nn.Embedding(num_audio_tokens + 1, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, batch_first=True, norm_first=True)
        self.decoder = nn.TransformerEncoder(layer, num_layers)
        self.predict_layer = nn.Linear(d_model, num_audio_tokens + 1)

    def forward(self, x, x_lens, y, y_lens):
        text = self.text_embedding(x)
        codes = y[..., 0]
        audio = self.audio_embedding(codes)
        xy = torch.cat([text, audio], dim=1)
        n = xy.size(1)
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool, device=xy.device), diagonal=1)
        h = self.decoder(xy, mask=mask)
        logits = self.predict_layer(h[:, x.size(1):-1])
        loss = F.cross_entropy(logits.transpose(1, 2), codes[:, 1:], reduction="sum")
        acc = (logits.argmax(-1) == codes[:, 1:]).float().mean()
        return logits, loss, {"ArTop1Acc": acc}


def get_model(params):
    return VALLE(d_model=params.decoder_dim, nhead=params.nhead, num_layers=params.num_decoder_layers)
