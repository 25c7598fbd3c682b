import torch.nn as nn

from global_attention import GlobalAttention


class RNNEncoder(nn.Module):
    def __init__(self, vocab_size, emb_dim, hidden):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, emb_dim, padding_idx=1)
        self.rnn = nn.LSTM(emb_dim, hidden, batch_first=True)

    def forward(self, src):
        return self.rnn(self.embeddings(src))


class InputFeedDecoder(nn.Module):
    def __init__(self, vocab_size, emb_dim, hidden):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, emb_dim, padding_idx=1)
        self.rnn = nn.LSTM(emb_dim, hidden, batch_first=True)
        self.attn = GlobalAttention(hidden)
        self.dropout = nn.Dropout(0.3)

    def forward(self, tgt, memory_bank, state, memory_mask=None):
        out, state = self.rnn(self.embeddings(tgt), state)
        attn_h, align = self.attn(out, memory_bank, memory_mask)
        return self.dropout(attn_h), state, align


class NMTModel(nn.Module):
    def __init__(self, encoder, decoder, generator):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.generator = generator

    def forward(self, src, tgt, src_mask=None):
        memory_bank, enc_state = self.encoder(src)
        dec_out, _, attns = self.decoder(tgt, memory_bank, enc_state, src_mask)
        return self.generator(dec_out), attns


def build_base_model(src_vocab, tgt_vocab, emb_dim=256, hidden=512, share_embeddings=False):
    encoder = RNNEncoder(src_vocab, emb_dim, hidden)
    decoder = InputFeedDecoder(tgt_vocab, emb_dim, hidden)
    generator = nn.Sequential(
        nn.Linear(hidden, tgt_vocab),
        nn.LogSoftmax(),  # expect: TCK608
    )
    if share_embeddings:
        generator[0].weight = decoder.embeddings.weight
    return NMTModel(encoder, decoder, generator)
