from torch import nn

from global_attention import GlobalAttention


class RNNDecoder(nn.Module):
    def __init__(self, vocab_size, hidden_size, attn_type="general"):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_size, padding_idx=1)
        self.rnn = nn.LSTM(hidden_size, hidden_size, batch_first=True)
        self.attn = GlobalAttention(hidden_size, attn_type=attn_type)

    def forward(self, tgt, memory_bank, memory_lengths, state=None):
        output, state = self.rnn(self.embeddings(tgt), state)
        attn_h, attn = self.attn(output, memory_bank, memory_lengths)
        return attn_h, state, attn


class NMTModel(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, hidden_size):
        super().__init__()
        self.src_embeddings = nn.Embedding(src_vocab, hidden_size, padding_idx=1)
        self.encoder = nn.LSTM(hidden_size, hidden_size, batch_first=True)
        self.decoder = RNNDecoder(tgt_vocab, hidden_size)

    def forward(self, src, tgt, lengths):
        memory_bank, state = self.encoder(self.src_embeddings(src))
        dec_out, _, attn = self.decoder(tgt, memory_bank, lengths, state)
        return dec_out, attn


def build_base_model(opt, src_vocab, tgt_vocab, copy_generator_cls=None):
    model = NMTModel(src_vocab, tgt_vocab, opt.rnn_size)
    if not opt.copy_attn:
        generator = nn.Sequential(
            nn.Linear(opt.rnn_size, tgt_vocab),
            nn.LogSoftmax(dim=-1))
        if opt.share_decoder_embeddings:
            generator[0].weight = model.decoder.embeddings.weight
    else:
        generator = copy_generator_cls(opt.rnn_size, tgt_vocab)
    model.generator = generator
    return model
