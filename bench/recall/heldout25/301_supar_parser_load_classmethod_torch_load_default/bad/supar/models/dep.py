"""Biaffine dependency parser (Dozat and Manning, 2017)."""
import torch
import torch.nn as nn

from supar.modules import MLP, Biaffine, CharLSTM, VariationalLSTM
from supar.parser import Parser
from supar.utils import Config


class BiaffineDependencyModel(nn.Module):
    def __init__(self, n_words, n_rels, n_chars=None, n_embed=100, n_lstm_hidden=400, n_arc_mlp=500,
                 n_rel_mlp=100, pad_index=0, unk_index=1, **kwargs):
        super().__init__()
        self.args = Config().update(locals())
        self.word_embed = nn.Embedding(n_words, n_embed)
        self.char_embed = CharLSTM(n_chars, n_embed=50, n_out=n_embed) if n_chars else None
        self.encoder = VariationalLSTM(n_embed * (2 if n_chars else 1), n_lstm_hidden, num_layers=3)
        self.arc_mlp_d = MLP(n_lstm_hidden * 2, n_arc_mlp)
        self.arc_mlp_h = MLP(n_lstm_hidden * 2, n_arc_mlp)
        self.rel_mlp_d = MLP(n_lstm_hidden * 2, n_rel_mlp)
        self.rel_mlp_h = MLP(n_lstm_hidden * 2, n_rel_mlp)
        self.arc_attn = Biaffine(n_arc_mlp, bias_x=True, bias_y=False)
        self.rel_attn = Biaffine(n_rel_mlp, n_out=n_rels, bias_x=True, bias_y=True)
        self.criterion = nn.CrossEntropyLoss()

    def load_pretrained(self, embed=None):
        if embed is not None:
            self.pretrained = nn.Embedding.from_pretrained(embed)
            nn.init.zeros_(self.word_embed.weight)
        return self

    def forward(self, words, chars=None):
        embed = self.word_embed(words)
        if hasattr(self, "pretrained"):
            embed = embed + self.pretrained(words)
        if self.char_embed is not None:
            embed = torch.cat((embed, self.char_embed(chars)), -1)
        x = self.encoder(embed)
        s_arc = self.arc_attn(self.arc_mlp_d(x), self.arc_mlp_h(x))
        s_rel = self.rel_attn(self.rel_mlp_d(x), self.rel_mlp_h(x)).permute(0, 2, 3, 1)
        return s_arc, s_rel


class BiaffineDependencyParser(Parser):
    NAME = "biaffine-dependency"
    MODEL = BiaffineDependencyModel

    def train_step(self, batch):
        words, chars, arcs, rels = batch
        mask = words.ne(self.args.pad_index)
        s_arc, s_rel = self.model(words, chars)
        s_rel = s_rel[torch.arange(len(arcs)), arcs]
        return self.model.criterion(s_arc[mask], arcs[mask]) + self.model.criterion(s_rel[mask], rels[mask])
