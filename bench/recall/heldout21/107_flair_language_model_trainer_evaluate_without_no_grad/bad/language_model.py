import torch
import torch.nn as nn


class LanguageModel(nn.Module):
    """Character-level LSTM language model."""

    def __init__(self, dictionary_size, is_forward_lm=True, hidden_size=2048, nlayers=1, embedding_size=100,
                 dropout=0.25):
        super().__init__()
        self.is_forward_lm = is_forward_lm
        self.hidden_size = hidden_size
        self.nlayers = nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(dictionary_size, embedding_size)
        self.rnn = nn.LSTM(embedding_size, hidden_size, nlayers, dropout=dropout if nlayers > 1 else 0.0)
        self.decoder = nn.Linear(hidden_size, dictionary_size)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output.view(-1, output.size(2)))
        return decoded.view(output.size(0), output.size(1), decoded.size(1)), output, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.hidden_size),
                weight.new_zeros(self.nlayers, bsz, self.hidden_size))

    def save(self, path):
        torch.save({"state_dict": self.state_dict(), "is_forward_lm": self.is_forward_lm,
                    "hidden_size": self.hidden_size, "nlayers": self.nlayers}, path)
