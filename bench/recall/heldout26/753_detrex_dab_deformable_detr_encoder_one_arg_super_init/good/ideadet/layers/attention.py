import torch.nn as nn


class MultiheadAttention(nn.Module):
    """nn.MultiheadAttention with a residual connection and positional embeddings added to q/k."""

    def __init__(self, embed_dim, num_heads, attn_drop=0.0, proj_drop=0.0, batch_first=True):
        super().__init__()
        self.embed_dim = embed_dim
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, dropout=attn_drop, batch_first=batch_first)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, query, key=None, value=None, identity=None, query_pos=None, key_pos=None,
                attn_mask=None, key_padding_mask=None, **kwargs):
        key = query if key is None else key
        value = key if value is None else value
        identity = query if identity is None else identity
        if query_pos is not None:
            query = query + query_pos
        if key_pos is not None:
            key = key + key_pos
        out = self.attn(query, key, value, attn_mask=attn_mask, key_padding_mask=key_padding_mask)[0]
        return identity + self.proj_drop(out)


class FFN(nn.Module):
    def __init__(self, embed_dim=256, feedforward_dim=1024, output_dim=None, num_fcs=2, ffn_drop=0.0):
        super().__init__()
        output_dim = embed_dim if output_dim is None else output_dim
        layers, in_dim = [], embed_dim
        for _ in range(num_fcs - 1):
            layers += [nn.Linear(in_dim, feedforward_dim), nn.ReLU(inplace=True), nn.Dropout(ffn_drop)]
            in_dim = feedforward_dim
        layers += [nn.Linear(in_dim, output_dim), nn.Dropout(ffn_drop)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x, identity=None):
        identity = x if identity is None else identity
        return identity + self.layers(x)
