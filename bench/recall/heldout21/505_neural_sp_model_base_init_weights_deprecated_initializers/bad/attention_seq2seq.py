import torch
import torch.nn as nn
import torch.nn.functional as F

from base import ModelBase


class AttentionSeq2seq(ModelBase):
    """Attention-based encoder-decoder for speech recognition."""

    def __init__(self, input_size, num_units, num_classes, encoder_type="lstm", decoder_type="lstm",
                 parameter_init_distribution="uniform", parameter_init=0.1,
                 recurrent_weight_orthogonal=False, init_forget_gate_bias_with_one=True):
        super().__init__()
        self.encoder_type = encoder_type
        self.decoder_type = decoder_type
        self.encoder = nn.LSTM(input_size, num_units, num_layers=2, batch_first=True, bidirectional=True)
        self.decoder = nn.LSTMCell(num_units * 2 + num_units, num_units)
        self.attention_enc = nn.Linear(num_units * 2, num_units)
        self.attention_dec = nn.Linear(num_units, num_units)
        self.attention_v = nn.Linear(num_units, 1)
        self.embed = nn.Embedding(num_classes, num_units)
        self.fc = nn.Linear(num_units, num_classes)

        # Initialize parameters
        self.init_weights(parameter_init, distribution=parameter_init_distribution, ignore_keys=["bias"])

        # Initialize all biases with 0
        self.init_weights(0, distribution="constant", keys=["bias"])

        # Recurrent weights are orthogonalized
        if recurrent_weight_orthogonal:
            self.init_weights(parameter_init, distribution="orthogonal",
                              keys=["encoder", "weight"], ignore_keys=["bias"])
            self.init_weights(parameter_init, distribution="orthogonal",
                              keys=["decoder", "weight"], ignore_keys=["bias"])

        if init_forget_gate_bias_with_one:
            self.init_forget_gate_bias_with_one()

    def forward(self, xs, ys):
        enc_out, _ = self.encoder(xs)
        keys = self.attention_enc(enc_out)
        batch = xs.size(0)
        h = xs.new_zeros(batch, self.decoder.hidden_size)
        c = xs.new_zeros(batch, self.decoder.hidden_size)
        context = enc_out.new_zeros(batch, enc_out.size(-1))
        logits = []
        for t in range(ys.size(1)):
            h, c = self.decoder(torch.cat([self.embed(ys[:, t]), context], dim=-1), (h, c))
            energy = self.attention_v(torch.tanh(keys + self.attention_dec(h).unsqueeze(1))).squeeze(-1)
            attn = F.softmax(energy, dim=-1)
            context = torch.bmm(attn.unsqueeze(1), enc_out).squeeze(1)
            logits.append(self.fc(h))
        logits = torch.stack(logits, dim=1)
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), ys[:, 1:].reshape(-1))
