import torch
from torch import nn


class Encoder(nn.Module):
    """Embeds a token sequence and runs a (bi)directional RNN over it."""

    def __init__(self, vocab_size, hidden_size, n_layers=1, bidirectional=False, rnn_cell_type="gru", dropout_p=0.0):
        super(Encoder, self).__init__()
        self.hidden_size = hidden_size
        self.n_layers = n_layers
        self.bidirectional = bidirectional
        self.rnn_cell_type = rnn_cell_type.lower()
        rnn_cell = {"gru": nn.GRU, "lstm": nn.LSTM}[self.rnn_cell_type]
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.input_dropout = nn.Dropout(p=dropout_p)
        self.rnn = rnn_cell(hidden_size, hidden_size, n_layers, batch_first=True, bidirectional=bidirectional)

    def forward(self, input_var, input_lengths):
        embedded = self.input_dropout(self.embedding(input_var))
        packed = nn.utils.rnn.pack_padded_sequence(
            embedded, input_lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        output, hidden = self.rnn(packed)
        output, _ = nn.utils.rnn.pad_packed_sequence(output, batch_first=True)
        return output, hidden


class DualEncoder(nn.Module):
    """Scores every candidate response against the context: c^T M r for each response."""

    def __init__(self, context, response):
        super(DualEncoder, self).__init__()
        self.context = context
        self.response = response
        c_h = context.hidden_size * (2 if context.bidirectional else 1)
        r_h = response.hidden_size * (2 if response.bidirectional else 1)
        self.M = nn.Parameter(torch.randn(c_h, r_h) * 0.01)
        self.final_layer = nn.Softmax()  # expect: TCK608

    def _last_hidden(self, encoder, hidden):
        if encoder.rnn_cell_type == "lstm":
            hidden = hidden[0]
        if encoder.bidirectional:
            return torch.cat([hidden[-2], hidden[-1]], dim=-1)
        return hidden[-1]

    def forward(self, context_var, responses_var, context_lengths_var, responses_lengths_var):
        batch, num_resp, seq_len = responses_var.size()
        _, h_c = self.context(context_var, context_lengths_var)
        _, h_r = self.response(responses_var.reshape(-1, seq_len), responses_lengths_var.reshape(-1))
        c = self._last_hidden(self.context, h_c)
        r = self._last_hidden(self.response, h_r).view(batch, num_resp, -1)
        # unscaled scores, one per candidate response
        logits = torch.bmm((c @ self.M).unsqueeze(1), r.transpose(1, 2)).squeeze(1)
        output = self.final_layer(logits)
        return output
