import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Attention(nn.Module):
    def __init__(self, attention_size):
        super().__init__()
        self.attention_vector = nn.Parameter(torch.empty(attention_size).uniform_(-0.05, 0.05))

    def forward(self, inputs, input_lengths):
        logits = inputs.matmul(self.attention_vector)
        max_len = inputs.size(1)
        mask = torch.arange(max_len, device=inputs.device)[None, :] < input_lengths[:, None].to(inputs.device)
        logits = logits.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(logits, dim=-1)
        return (inputs * weights.unsqueeze(-1)).sum(dim=1), weights


class TorchMoji(nn.Module):
    def __init__(self, nb_classes, nb_tokens, embedding_dim=256, hidden_size=512, final_dropout_rate=0.5):
        super().__init__()
        self.embed = nn.Embedding(nb_tokens, embedding_dim)
        self.embed_dropout = nn.Dropout2d(0.25)
        self.lstm_0 = nn.LSTM(embedding_dim, hidden_size, batch_first=True, bidirectional=True)
        self.lstm_1 = nn.LSTM(hidden_size * 2, hidden_size, batch_first=True, bidirectional=True)
        self.attention_layer = Attention(hidden_size * 4 + embedding_dim)
        self.final_dropout = nn.Dropout(final_dropout_rate)
        self.output_layer = nn.Linear(hidden_size * 4 + embedding_dim, nb_classes if nb_classes > 2 else 1)

    def forward(self, input_seqs):
        """Accepts a LongTensor batch or a numpy array of token ids; returns the same kind."""
        return_numpy = False
        return_tensor = False
        if isinstance(input_seqs, torch.Tensor):
            return_tensor = True
        else:
            input_seqs = torch.from_numpy(input_seqs.astype("int64"))
            return_numpy = True

        input_lengths = (input_seqs != 0).sum(dim=1).clamp(min=1).cpu()
        x = torch.tanh(self.embed(input_seqs))
        x = self.embed_dropout(x.unsqueeze(-1)).squeeze(-1)
        packed = pack_padded_sequence(x, input_lengths, batch_first=True, enforce_sorted=False)
        lstm_0_output, _ = self.lstm_0(packed)
        lstm_1_output, _ = self.lstm_1(lstm_0_output)
        out_0, _ = pad_packed_sequence(lstm_0_output, batch_first=True)
        out_1, _ = pad_packed_sequence(lstm_1_output, batch_first=True)
        features = torch.cat((out_1, out_0, x[:, :out_0.size(1)]), dim=2)
        x, _ = self.attention_layer(features, input_lengths)
        outputs = self.output_layer(self.final_dropout(x))

        # Adapt return format to the input format
        if return_tensor:
            outputs = outputs.data
        if return_numpy:
            outputs = outputs.data.numpy()
        return outputs
