import torch
from torch import nn


class TransformerBinaryClassifier(nn.Module):
    def __init__(self, d_model, nhead=4, num_layers=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.classifier = nn.Linear(d_model, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, raw_input, gnn_output, mask):
        hidden = self.encoder(raw_input + gnn_output, src_key_padding_mask=mask)
        mean_output = hidden.mean(dim=1)
        logits = self.classifier(mean_output)
        logits = self.sigmoid(logits).squeeze()
        return logits
