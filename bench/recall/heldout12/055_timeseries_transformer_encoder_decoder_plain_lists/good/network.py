from torch import nn

from layers import DecoderLayer, EncoderLayer, PositionalEncoding


class Transformer(nn.Module):
    def __init__(self, dim_val, input_size, dec_seq_len, out_seq_len, n_decoder_layers=1, n_encoder_layers=1, n_heads=1):
        super().__init__()
        self.dec_seq_len = dec_seq_len

        self.encs = nn.ModuleList()
        for _ in range(n_encoder_layers):
            self.encs.append(EncoderLayer(dim_val, n_heads))

        self.decs = nn.ModuleList()
        for _ in range(n_decoder_layers):
            self.decs.append(DecoderLayer(dim_val, n_heads))

        self.pos = PositionalEncoding(dim_val)
        self.enc_input_fc = nn.Linear(input_size, dim_val)
        self.dec_input_fc = nn.Linear(input_size, dim_val)
        self.out_fc = nn.Linear(dec_seq_len * dim_val, out_seq_len)

    def forward(self, x):
        e = self.pos(self.enc_input_fc(x))
        for enc in self.encs:
            e = enc(e)
        d = self.dec_input_fc(x[:, -self.dec_seq_len :])
        for dec in self.decs:
            d = dec(d, e)
        return self.out_fc(d.flatten(start_dim=1))
