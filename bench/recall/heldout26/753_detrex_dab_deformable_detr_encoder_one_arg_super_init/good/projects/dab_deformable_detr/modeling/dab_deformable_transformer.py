import torch
import torch.nn as nn

from ideadet.layers import (
    FFN,
    BaseTransformerLayer,
    MultiheadAttention,
    MultiScaleDeformableAttention,
    TransformerLayerSequence,
)


class DeformableDetrEncoder(TransformerLayerSequence):
    def __init__(
        self,
        embed_dim: int = 256,
        num_heads: int = 8,
        feedforward_dim: int = 1024,
        attn_dropout: float = 0.1,
        ffn_dropout: float = 0.1,
        operation_order: tuple = ("self_attn", "norm", "ffn", "norm"),
        num_layers: int = 6,
        post_norm: bool = False,
    ):
        super(DeformableDetrEncoder, self).__init__(
            transformer_layers=BaseTransformerLayer(
                attn=MultiScaleDeformableAttention(embed_dim=embed_dim, num_heads=num_heads, dropout=attn_dropout),
                ffn=FFN(embed_dim=embed_dim, feedforward_dim=feedforward_dim, output_dim=embed_dim,
                        num_fcs=2, ffn_drop=ffn_dropout),
                norm=nn.LayerNorm(embed_dim),
                operation_order=operation_order,
            ),
            num_layers=num_layers,
        )
        self.embed_dim = self.layers[0].embed_dim
        self.pre_norm = self.layers[0].pre_norm
        self.post_norm_layer = nn.LayerNorm(self.embed_dim) if post_norm else None

    def forward(self, query, key, value, query_pos=None, key_pos=None, attn_masks=None,
                query_key_padding_mask=None, key_padding_mask=None, **kwargs):
        for layer in self.layers:
            query = layer(query, key, value, query_pos=query_pos, attn_masks=attn_masks,
                          query_key_padding_mask=query_key_padding_mask,
                          key_padding_mask=key_padding_mask, **kwargs)
        if self.post_norm_layer is not None:
            query = self.post_norm_layer(query)
        return query


class DabDeformableDetrTransformerDecoder(TransformerLayerSequence):
    def __init__(
        self,
        embed_dim: int = 256,
        num_heads: int = 8,
        feedforward_dim: int = 1024,
        attn_dropout: float = 0.1,
        ffn_dropout: float = 0.1,
        num_layers: int = 6,
        return_intermediate: bool = True,
        use_dab: bool = True,
    ):
        super(DabDeformableDetrTransformerDecoder, self).__init__(
            transformer_layers=BaseTransformerLayer(
                attn=[
                    MultiheadAttention(embed_dim=embed_dim, num_heads=num_heads, attn_drop=attn_dropout),
                    MultiScaleDeformableAttention(embed_dim=embed_dim, num_heads=num_heads, dropout=attn_dropout),
                ],
                ffn=FFN(embed_dim=embed_dim, feedforward_dim=feedforward_dim, output_dim=embed_dim,
                        ffn_drop=ffn_dropout),
                norm=nn.LayerNorm(embed_dim),
                operation_order=("self_attn", "norm", "cross_attn", "norm", "ffn", "norm"),
            ),
            num_layers=num_layers,
        )
        self.return_intermediate = return_intermediate
        self.use_dab = use_dab
        self.embed_dim = embed_dim
        self.ref_point_head = nn.Sequential(nn.Linear(2 * embed_dim, embed_dim), nn.ReLU(),
                                            nn.Linear(embed_dim, embed_dim))

    def forward(self, query, key, value, reference_points=None, key_padding_mask=None, **kwargs):
        intermediate = []
        for layer in self.layers:
            query_pos = self.ref_point_head(torch.cat([query, query], dim=-1))
            query = layer(query, key, value, query_pos=query_pos, key_padding_mask=key_padding_mask, **kwargs)
            if self.return_intermediate:
                intermediate.append(query)
        return torch.stack(intermediate) if self.return_intermediate else query


class DabDeformableDetrTransformer(nn.Module):
    def __init__(self, encoder=None, decoder=None, num_feature_levels=4, num_queries=300):
        super(DabDeformableDetrTransformer, self).__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.num_feature_levels = num_feature_levels
        self.embed_dim = self.encoder.embed_dim
        self.level_embeds = nn.Parameter(torch.zeros(num_feature_levels, self.embed_dim))
        self.query_embed = nn.Embedding(num_queries, self.embed_dim)

    def init_weights(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        for m in self.modules():
            if isinstance(m, MultiScaleDeformableAttention):
                m.init_weights()
        nn.init.normal_(self.level_embeds)

    def forward(self, multi_level_feats, multi_level_masks, multi_level_pos_embeds):
        feats, masks, pos = [], [], []
        for lvl, (feat, mask, pos_embed) in enumerate(zip(multi_level_feats, multi_level_masks, multi_level_pos_embeds)):
            feats.append(feat.flatten(2).transpose(1, 2))
            masks.append(mask.flatten(1))
            pos.append(pos_embed.flatten(2).transpose(1, 2) + self.level_embeds[lvl].view(1, 1, -1))
        feat_flatten, mask_flatten, pos_flatten = torch.cat(feats, 1), torch.cat(masks, 1), torch.cat(pos, 1)

        memory = self.encoder(feat_flatten, None, None, query_pos=pos_flatten,
                              query_key_padding_mask=mask_flatten)
        target = self.query_embed.weight.unsqueeze(0).expand(memory.shape[0], -1, -1)
        return self.decoder(target, memory, memory, key_padding_mask=mask_flatten)
