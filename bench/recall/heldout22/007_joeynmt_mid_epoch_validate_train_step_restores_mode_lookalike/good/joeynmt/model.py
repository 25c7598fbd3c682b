import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Encoder-decoder translation model; forward dispatches on `return_type`."""

    def __init__(self, src_vocab_size, trg_vocab_size, emb_size=256, hidden_size=512, pad_index=1, dropout=0.3):
        super().__init__()
        self.pad_index = pad_index
        self.src_embed = nn.Embedding(src_vocab_size, emb_size, padding_idx=pad_index)
        self.trg_embed = nn.Embedding(trg_vocab_size, emb_size, padding_idx=pad_index)
        self.encoder = nn.GRU(emb_size, hidden_size, batch_first=True)
        self.decoder = nn.GRU(emb_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.output_layer = nn.Linear(hidden_size, trg_vocab_size)

    def _decode(self, src, trg_input):
        _, hidden = self.encoder(self.dropout(self.src_embed(src)))
        out, _ = self.decoder(self.dropout(self.trg_embed(trg_input)), hidden)
        return self.output_layer(self.dropout(out))

    def forward(self, return_type=None, src=None, trg_input=None, trg=None, **kwargs):
        logits = self._decode(src, trg_input)
        if return_type == "loss":
            log_probs = F.log_softmax(logits, dim=-1)
            batch_loss = F.nll_loss(log_probs.flatten(0, 1), trg.flatten(), ignore_index=self.pad_index,
                                    reduction="sum")
            n_correct = (log_probs.argmax(-1).eq(trg) & trg.ne(self.pad_index)).sum()
            return batch_loss, log_probs, None, n_correct
        return logits, None, None, None
