import torch
import torch.utils.checkpoint
from torch import nn


class EncoderLayer(nn.Module):
    def __init__(self, hidden_size, num_heads, dropout=0.1):
        super().__init__()
        self.attn = nn.MultiheadAttention(hidden_size, num_heads, dropout=dropout, batch_first=True)
        self.norm1 = nn.LayerNorm(hidden_size)
        self.ff = nn.Sequential(
            nn.Linear(hidden_size, 4 * hidden_size),
            nn.GELU(),
            nn.Linear(4 * hidden_size, hidden_size),
            nn.Dropout(dropout),
        )
        self.norm2 = nn.LayerNorm(hidden_size)

    def forward(self, hidden_states, key_padding_mask):
        attn_out, _ = self.attn(hidden_states, hidden_states, hidden_states,
                                key_padding_mask=key_padding_mask, need_weights=False)
        hidden_states = self.norm1(hidden_states + attn_out)
        return self.norm2(hidden_states + self.ff(hidden_states))


class Encoder(nn.Module):
    def __init__(self, vocab_size=30522, hidden_size=512, num_layers=12, num_heads=8):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([EncoderLayer(hidden_size, num_heads) for _ in range(num_layers)])
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids, attention_mask):
        hidden_states = self.embeddings(input_ids)
        key_padding_mask = attention_mask == 0
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = torch.utils.checkpoint.checkpoint(
                    layer, hidden_states, key_padding_mask, use_reentrant=True
                )
            else:
                hidden_states = layer(hidden_states, key_padding_mask)
        return hidden_states


class EncoderForSequenceClassification(nn.Module):
    def __init__(self, num_labels=2, **kwargs):
        super().__init__()
        self.encoder = Encoder(**kwargs)
        hidden = self.encoder.embeddings.embedding_dim
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids, attention_mask)
        return self.classifier(hidden[:, 0])
