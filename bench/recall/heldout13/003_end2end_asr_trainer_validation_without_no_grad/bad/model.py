import torch
import torch.nn as nn


class Transformer(nn.Module):
    """Small encoder-decoder ASR model: spectrogram frames in, token logits out."""

    def __init__(self, n_mels=80, vocab_size=100, dim=256, heads=4, layers=4, dropout=0.1, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.input_proj = nn.Linear(n_mels, dim)
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=pad_id)
        self.core = nn.Transformer(dim, heads, layers, layers, dim * 4, dropout, batch_first=True)
        self.output = nn.Linear(dim, vocab_size)

    def forward(self, src, src_lengths, tgt):
        tgt_in, gold = tgt[:, :-1], tgt[:, 1:]
        memory_mask = torch.arange(src.size(1), device=src.device)[None, :] >= src_lengths[:, None]
        causal = self.core.generate_square_subsequent_mask(tgt_in.size(1)).to(src.device)
        hidden = self.core(
            self.input_proj(src), self.embed(tgt_in), tgt_mask=causal,
            src_key_padding_mask=memory_mask, memory_key_padding_mask=memory_mask,
        )
        pred = self.output(hidden)
        hyp_seq = pred.argmax(-1)
        return pred, gold, hyp_seq, gold
