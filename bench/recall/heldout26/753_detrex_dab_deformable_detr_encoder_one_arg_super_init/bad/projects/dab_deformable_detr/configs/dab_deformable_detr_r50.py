"""Lazy config: the objects are only built when the training script instantiates the config."""
from detectron2.config import LazyCall as L

from modeling import (
    DabDeformableDetrTransformer,
    DabDeformableDetrTransformerDecoder,
    DeformableDetrEncoder,
)

transformer = L(DabDeformableDetrTransformer)(
    encoder=L(DeformableDetrEncoder)(
        embed_dim=256,
        num_heads=8,
        feedforward_dim=1024,
        attn_dropout=0.1,
        ffn_dropout=0.1,
        num_layers=6,
        post_norm=False,
    ),
    decoder=L(DabDeformableDetrTransformerDecoder)(
        embed_dim=256,
        num_heads=8,
        feedforward_dim=1024,
        attn_dropout=0.1,
        ffn_dropout=0.1,
        num_layers=6,
        return_intermediate=True,
        use_dab=True,
    ),
    num_feature_levels=4,
    num_queries=300,
)
