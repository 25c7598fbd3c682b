import torch
import torch.nn as nn
import torch.nn.utils.rnn as rnn_utils


class SentenceVAE(nn.Module):
    def __init__(self, vocab_size, embedding_size, hidden_size, latent_size, pad_idx, word_dropout=0.0):
        super().__init__()
        self.pad_idx = pad_idx
        self.word_dropout = word_dropout
        self.embedding = nn.Embedding(vocab_size, embedding_size, padding_idx=pad_idx)
        self.encoder_rnn = nn.GRU(embedding_size, hidden_size, batch_first=True)
        self.decoder_rnn = nn.GRU(embedding_size, hidden_size, batch_first=True)
        self.hidden2mean = nn.Linear(hidden_size, latent_size)
        self.hidden2logv = nn.Linear(hidden_size, latent_size)
        self.latent2hidden = nn.Linear(latent_size, hidden_size)
        self.outputs2vocab = nn.Linear(hidden_size, vocab_size)

    def forward(self, input_sequence, length):
        sorted_lengths, sorted_idx = torch.sort(length, descending=True)
        input_sequence = input_sequence[sorted_idx]
        packed = rnn_utils.pack_padded_sequence(self.embedding(input_sequence), sorted_lengths.cpu(), batch_first=True)
        _, hidden = self.encoder_rnn(packed)
        hidden = hidden.squeeze(0)

        mean = self.hidden2mean(hidden)
        logv = self.hidden2logv(hidden)
        z = mean + torch.randn_like(mean) * torch.exp(0.5 * logv)

        decoder_input = input_sequence
        if self.word_dropout > 0 and self.training:
            drop = torch.rand(input_sequence.shape, device=input_sequence.device) < self.word_dropout
            decoder_input = input_sequence.masked_fill(drop, self.pad_idx)
        packed = rnn_utils.pack_padded_sequence(self.embedding(decoder_input), sorted_lengths.cpu(), batch_first=True)
        outputs, _ = self.decoder_rnn(packed, self.latent2hidden(z).unsqueeze(0))
        padded, _ = rnn_utils.pad_packed_sequence(outputs, batch_first=True)

        _, reversed_idx = torch.sort(sorted_idx)
        padded = padded[reversed_idx]
        logp = nn.functional.log_softmax(self.outputs2vocab(padded), dim=-1)
        return logp, mean[reversed_idx], logv[reversed_idx], z[reversed_idx]
