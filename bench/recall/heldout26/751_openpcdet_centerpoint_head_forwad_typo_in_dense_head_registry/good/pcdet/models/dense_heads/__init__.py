from .anchor_head_single import AnchorHeadSingle
from .centerpoint_head import CenterHead

__all__ = {
    "AnchorHeadSingle": AnchorHeadSingle,
    "CenterHead": CenterHead,
}
