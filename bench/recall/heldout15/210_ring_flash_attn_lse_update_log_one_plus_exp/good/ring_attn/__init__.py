from .ring_attention import ring_attention_forward

__all__ = ["ring_attention_forward"]
