import torch
import torch.nn as nn
import torch.nn.functional as F


class S2VTModel(nn.Module):
    """Two-layer sequence-to-sequence video captioner over pre-extracted frame features."""

    def __init__(self, vocab_size, max_len=28, dim_hidden=512, dim_vid=2048, dim_word=512):
        super().__init__()
        self.max_len = max_len
        self.rnn1 = nn.LSTM(dim_vid, dim_hidden, batch_first=True)
        self.rnn2 = nn.LSTM(dim_hidden + dim_word, dim_hidden, batch_first=True)
        self.embedding = nn.Embedding(vocab_size, dim_word)
        self.out = nn.Linear(dim_hidden, vocab_size)

    def forward(self, vid_feats, target_variable=None, mode="train", opt=None):
        enc, _ = self.rnn1(vid_feats)
        context = enc.mean(1, keepdim=True)
        if mode == "train":
            words = self.embedding(target_variable[:, :-1])
            h, _ = self.rnn2(torch.cat([context.expand(-1, words.shape[1], -1), words], 2))
            return F.log_softmax(self.out(h), dim=2), None
        batch = vid_feats.shape[0]
        word = torch.ones(batch, 1, dtype=torch.long, device=vid_feats.device)
        state, logps, preds = None, [], []
        for _ in range(self.max_len):
            h, state = self.rnn2(torch.cat([context, self.embedding(word)], 2), state)
            logp = F.log_softmax(self.out(h[:, 0]), dim=1)
            word = torch.multinomial(logp.exp(), 1)
            logps.append(logp.gather(1, word))
            preds.append(word)
        return torch.cat(logps, 1), torch.cat(preds, 1)
