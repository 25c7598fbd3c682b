import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    """Additive self-attention pooling over the token axis."""

    def __init__(self, n_input: int, attn_dimension: int = 64, dropout: float = 0.4) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ws1 = nn.Linear(n_input, attn_dimension, bias=False)
        self.ws2 = nn.Linear(attn_dimension, 1, bias=False)
        self.tanh = nn.Tanh()
        self.init_weights()

    def init_weights(self, init_range: float = 0.1) -> None:
        nn.init.uniform_(self.ws1.weight, -init_range, init_range)
        nn.init.uniform_(self.ws2.weight, -init_range, init_range)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        bsz, seq_len, dim = inputs.shape
        flat = inputs.reshape(-1, dim)
        hidden = self.tanh(self.ws1(self.dropout(flat)))
        scores = self.ws2(hidden).reshape(bsz, seq_len)
        alphas = torch.nn.functional.softmax(scores)  # expect: TCK608
        return torch.bmm(alphas.unsqueeze(1), inputs).squeeze(1)


class MaxPool(nn.Module):
    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return torch.max(inputs, 1)[0]
