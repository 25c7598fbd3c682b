import torch
import torch.nn as nn
from torch.utils.data import Dataset


class VisDialDataset(Dataset):
    """Stand-in for the VisDial reader: image features, 10 rounds of questions, 100 answer options."""

    def __init__(self, size=512, rounds=10, options=100, vocab_size=1000, seq_len=20, feat_dim=2048):
        self.size, self.rounds, self.options = size, rounds, options
        self.vocab_size, self.seq_len, self.feat_dim = vocab_size, seq_len, feat_dim

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(index)
        return {
            "img_feat": torch.rand(36, self.feat_dim, generator=g),
            "ques": torch.randint(1, self.vocab_size, (self.rounds, self.seq_len), generator=g),
            "opt": torch.randint(1, self.vocab_size, (self.rounds, self.options, self.seq_len), generator=g),
            "ans_ind": torch.randint(0, self.options, (self.rounds,), generator=g),
        }


class LateFusionEncoder(nn.Module):
    def __init__(self, vocab_size=1000, dim=256, feat_dim=2048):
        super().__init__()
        self.word_embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.ques_rnn = nn.LSTM(dim, dim, batch_first=True)
        self.img_proj = nn.Linear(feat_dim, dim)
        self.fusion = nn.Linear(2 * dim, dim)

    def forward(self, batch):
        b, r, t = batch["ques"].shape
        _, (h, _) = self.ques_rnn(self.word_embed(batch["ques"].view(b * r, t)))
        img = self.img_proj(batch["img_feat"].mean(1)).unsqueeze(1).expand(b, r, -1).reshape(b * r, -1)
        return torch.tanh(self.fusion(torch.cat([h[-1], img], dim=1))).view(b, r, -1)


class DiscriminativeDecoder(nn.Module):
    def __init__(self, dim=256):
        super().__init__()
        self.word_embed = None
        self.option_rnn = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, encoder_output, batch):
        b, r, o, t = batch["opt"].shape
        _, (h, _) = self.option_rnn(self.word_embed(batch["opt"].view(b * r * o, t)))
        options = h[-1].view(b, r, o, -1)
        return (options * encoder_output.unsqueeze(2)).sum(-1)


class EncoderDecoderModel(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, batch):
        return self.decoder(self.encoder(batch), batch)
