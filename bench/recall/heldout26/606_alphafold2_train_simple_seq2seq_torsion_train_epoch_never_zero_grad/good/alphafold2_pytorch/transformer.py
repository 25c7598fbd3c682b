"""Plain encoder-decoder transformer used as a sequence -> backbone torsion angle baseline."""
import math

import torch
from torch import Tensor, nn
from torch.nn import TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size: int):
        super(TokenEmbedding, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 5000):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        table = torch.zeros((maxlen, emb_size))
        table[:, 0::2] = torch.sin(pos * den)
        table[:, 1::2] = torch.cos(pos * den)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", table.unsqueeze(-2))

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers: int, num_decoder_layers: int, emb_size: int, src_vocab_size: int,
                 tgt_vocab_size: int, dim_feedforward: int = 512, num_head: int = 8, dropout: float = 0.1):
        super(Seq2SeqTransformer, self).__init__()
        enc_layer = TransformerEncoderLayer(d_model=emb_size, nhead=num_head, dim_feedforward=dim_feedforward,
                                            dropout=dropout)
        self.transformer_encoder = TransformerEncoder(enc_layer, num_layers=num_encoder_layers)
        dec_layer = TransformerDecoderLayer(d_model=emb_size, nhead=num_head, dim_feedforward=dim_feedforward,
                                            dropout=dropout)
        self.transformer_decoder = TransformerDecoder(dec_layer, num_layers=num_decoder_layers)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(src_vocab_size, emb_size)

    def forward(self, src: Tensor, trg: Tensor, src_mask: Tensor, tgt_mask: Tensor, src_padding_mask: Tensor,
                tgt_padding_mask: Tensor, memory_key_padding_mask: Tensor):
        memory = self.transformer_encoder(self.src_tok_emb(src))
        outs = self.transformer_decoder(self.tgt_tok_emb(trg), memory)
        return self.generator(outs)
