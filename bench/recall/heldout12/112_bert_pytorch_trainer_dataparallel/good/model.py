import torch
from torch import nn


class BERT(nn.Module):
    def __init__(self, vocab_size, hidden=256, n_layers=4, attn_heads=4, dropout=0.1, max_len=128):
        super().__init__()
        self.hidden = hidden
        self.token = nn.Embedding(vocab_size, hidden, padding_idx=0)
        self.position = nn.Embedding(max_len, hidden)
        self.segment = nn.Embedding(3, hidden, padding_idx=0)
        layer = nn.TransformerEncoderLayer(hidden, attn_heads, hidden * 4, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)

    def forward(self, x, segment_info):
        positions = torch.arange(x.size(1), device=x.device).unsqueeze(0)
        h = self.token(x) + self.position(positions) + self.segment(segment_info)
        return self.encoder(h, src_key_padding_mask=(x == 0))


class BERTLM(nn.Module):
    def __init__(self, bert, vocab_size):
        super().__init__()
        self.bert = bert
        self.next_sentence = nn.Linear(bert.hidden, 2)
        self.mask_lm = nn.Linear(bert.hidden, vocab_size)

    def forward(self, x, segment_label):
        h = self.bert(x, segment_label)
        return torch.log_softmax(self.next_sentence(h[:, 0]), dim=-1), torch.log_softmax(self.mask_lm(h), dim=-1)
