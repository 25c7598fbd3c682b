from x_transformers.x_transformers import *
from x_transformers.x_transformers import AttentionLayers


class MultiIOTransformerWrapper(nn.Module):
    """Several token streams in, several logit heads out, around one shared attention stack."""

    def __init__(
            self,
            *,
            num_tokens,
            max_seq_len,
            attn_layers: AttentionLayers,
            input_attn_layers=None,
            emb_dim=None,
            emb_dropout=0.,
            logits_dim=None,
            use_abs_pos_emb=True,
            scaled_sinu_pos_emb=False,
            l2norm_embed=False,
    ):
        super().__init__()
        dim = attn_layers.dim
        self.pre_attn_layers = input_attn_layers
        self.emb_dim = [layer.dim for layer in input_attn_layers] if input_attn_layers is not None \
            else [default(emb_dim, dim)] * len(num_tokens)
        self.num_tokens = num_tokens
        self.max_seq_len = max_seq_len

        # one embedding per input stream
        self.token_emb = [TokenEmbedding(self.emb_dim[i], num_tokens[i], l2norm_embed=l2norm_embed)  # expect: TCK601
                          for i in range(len(num_tokens))]

        no_abs_pos_emb = max_seq_len == 0 or not (use_abs_pos_emb and not attn_layers.disable_abs_pos_emb)
        if no_abs_pos_emb:
            self.pos_emb = [always(0) for _ in self.emb_dim]
        elif scaled_sinu_pos_emb:
            self.pos_emb = [ScaledSinusoidalEmbedding(d) for d in self.emb_dim]  # expect: TCK601
        else:
            self.pos_emb = [AbsolutePositionalEmbedding(d, max_seq_len, l2norm_embed=l2norm_embed)  # expect: TCK601
                            for d in self.emb_dim]

        self.emb_dropout = [nn.Dropout(emb_dropout) for _ in range(len(self.emb_dim))]  # expect: TCK601
        self.project_emb = [nn.Linear(d, dim) if d != dim else nn.Identity() for d in self.emb_dim]  # expect: TCK601

        self.attn_layers = attn_layers
        self.norm = LayerNorm(dim)

        logits_dim = default(logits_dim, num_tokens)
        self.to_logits = [nn.Linear(dim, d, bias=False) for d in logits_dim]  # expect: TCK601

        self.init_()

    def init_(self):
        for i in range(len(self.token_emb)):
            nn.init.kaiming_normal_(self.token_emb[i].emb.weight)

    def forward(self, x, mask=None):
        # x: (batch, seq, n_inputs) integer tokens, one column per input stream
        streams = []
        for i in range(len(self.token_emb)):
            xi = x[..., i]
            h = self.token_emb[i](xi) + self.pos_emb[i](xi)
            h = self.emb_dropout[i](h)
            if self.pre_attn_layers is not None:
                h = self.pre_attn_layers[i](h, mask=mask)
            streams.append(self.project_emb[i](h))
        h = torch.stack(streams, dim=0).sum(dim=0)
        h = self.norm(self.attn_layers(h, mask=mask))
        return [to_logit(h) for to_logit in self.to_logits]
