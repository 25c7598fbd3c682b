import torch
import torch.nn as nn
import torch.nn.functional as F


class FairseqDecoder(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.proj = nn.Linear(dim, vocab_size)


class FairseqIncrementalDecoder(FairseqDecoder):
    def __init__(self, vocab_size, dim):
        super().__init__(vocab_size, dim)
        self._incremental_state = {}

    def incremental_forward(self, tokens, encoder_out):
        """Forward pass for one time step."""
        return self.forward(tokens[:, -1:], encoder_out)


class LSTMDecoder(FairseqDecoder):
    def __init__(self, vocab_size, dim=256):
        super().__init__(vocab_size, dim)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, tokens, encoder_out):
        x, _ = self.rnn(self.embed_tokens(tokens))
        attn = torch.bmm(x, encoder_out.transpose(1, 2)).softmax(dim=-1)
        return self.proj(x + torch.bmm(attn, encoder_out)), attn


class FConvDecoder(FairseqIncrementalDecoder):
    def __init__(self, vocab_size, dim=256):
        super().__init__(vocab_size, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=2)

    def forward(self, tokens, encoder_out):
        x = self.embed_tokens(tokens).transpose(1, 2)
        x = F.glu(torch.cat([self.conv(x)[:, :, : tokens.size(1)]] * 2, dim=1), dim=1).transpose(1, 2)
        attn = torch.bmm(x, encoder_out.transpose(1, 2)).softmax(dim=-1)
        return self.proj(x + torch.bmm(attn, encoder_out)), attn


class Seq2SeqModel(nn.Module):
    def __init__(self, vocab_size, conv_decoder=True, dim=256):
        super().__init__()
        self.encoder = nn.Embedding(vocab_size, dim)
        self.decoder = FConvDecoder(vocab_size, dim) if conv_decoder else LSTMDecoder(vocab_size, dim)

    def forward(self, src_tokens, prev_output_tokens):
        return self.decoder(prev_output_tokens, self.encoder(src_tokens))
