from pathlib import Path
from typing import Union

import numpy as np
import soundfile as sf
import torch
import torch.nn as nn
import torch.nn.functional as F


class UpsampleNetwork(nn.Module):
    def __init__(self, feat_dims, upsample_factors):
        super().__init__()
        self.scale = int(np.prod(upsample_factors))
        self.conv = nn.Conv1d(feat_dims, feat_dims, kernel_size=3, padding=1)

    def forward(self, mels):
        mels = self.conv(mels)
        return F.interpolate(mels, scale_factor=self.scale, mode="linear").transpose(1, 2)


class WaveRNN(nn.Module):
    def __init__(self, rnn_dims, fc_dims, bits, upsample_factors, feat_dims, hop_length, sample_rate, mode="RAW"):
        super().__init__()
        self.mode = mode
        self.n_classes = 2 ** bits
        self.rnn_dims = rnn_dims
        self.hop_length = hop_length
        self.sample_rate = sample_rate
        self.upsample = UpsampleNetwork(feat_dims, upsample_factors)
        self.I = nn.Linear(feat_dims + 1, rnn_dims)
        self.rnn = nn.GRU(rnn_dims, rnn_dims, batch_first=True)
        self.fc1 = nn.Linear(rnn_dims, fc_dims)
        self.dropout = nn.Dropout(0.1)
        self.fc2 = nn.Linear(fc_dims, self.n_classes)
        self.register_buffer("step", torch.zeros(1, dtype=torch.long))

    def forward(self, x, mels):
        self.step += 1
        mels = self.upsample(mels)
        h = self.I(torch.cat([x.unsqueeze(-1), mels[:, :x.size(1)]], dim=2))
        h, _ = self.rnn(h)
        return self.fc2(self.dropout(F.relu(self.fc1(h))))

    def generate(self, mels, save_path: Union[str, Path], batched, target, overlap, mu_law):
        """Sample a waveform one step at a time; switches to eval for sampling and back to train at the end."""
        self.eval()
        device = next(self.parameters()).device
        output = []
        cell = nn.GRUCell(self.rnn_dims, self.rnn_dims).to(device)
        cell.weight_hh.data, cell.weight_ih.data = self.rnn.weight_hh_l0.data, self.rnn.weight_ih_l0.data
        cell.bias_hh.data, cell.bias_ih.data = self.rnn.bias_hh_l0.data, self.rnn.bias_ih_l0.data
        with torch.no_grad():
            mels = self.upsample(torch.as_tensor(mels, device=device))
            b_size, seq_len, _ = mels.size()
            h = torch.zeros(b_size, self.rnn_dims, device=device)
            x = torch.zeros(b_size, 1, device=device)
            for i in range(seq_len):
                h = cell(self.I(torch.cat([x, mels[:, i, :]], dim=1)), h)
                logits = self.fc2(F.relu(self.fc1(h)))
                if self.mode == "RAW":
                    sample = torch.distributions.Categorical(logits=logits).sample().float()
                    sample = 2 * sample / (self.n_classes - 1.0) - 1.0
                    output.append(sample)
                    x = sample.unsqueeze(-1)
                else:
                    raise RuntimeError("Unknown model mode value - ", self.mode)
        output = torch.stack(output).transpose(0, 1)[0].cpu().numpy().astype(np.float64)
        sf.write(str(save_path), output, self.sample_rate)
        self.train()
        return output

    def get_step(self):
        return self.step.data.item()
