from .dab_deformable_transformer import (
    DabDeformableDetrTransformer,
    DabDeformableDetrTransformerDecoder,
    DeformableDetrEncoder,
)
