import torch
from torch import nn


class Wav2Vec2Model(nn.Module):
    """Stand-in for the wav2vec2 encoder whose hidden states condition the video model."""

    def __init__(self, hidden=768, layers=12):
        super().__init__()
        self.conv = nn.Conv1d(1, hidden, kernel_size=400, stride=320)
        self.layers = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers))

    def forward(self, audio_feature, seq_len):
        h = self.conv(audio_feature.unsqueeze(1)).transpose(1, 2)
        h = nn.functional.interpolate(h.transpose(1, 2), size=seq_len, mode="linear").transpose(1, 2)
        hidden_states = [h]
        for layer in self.layers:
            h = torch.tanh(layer(h))
            hidden_states.append(h)
        return hidden_states
