from torch import nn


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp=200, nhid=200, nlayers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens):
        emb = self.drop(self.encoder(tokens))
        output, _ = self.rnn(emb)
        return self.decoder(self.drop(output))
