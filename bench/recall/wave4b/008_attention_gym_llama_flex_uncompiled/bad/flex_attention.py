import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention
from transformers.models.llama.modeling_llama import LlamaAttention, apply_rotary_pos_emb


def causal_mask(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


class LlamaFlexAttention(LlamaAttention):
    def forward(self, hidden_states, position_embeddings, attention_mask=None, **kwargs):
        bsz, q_len, _ = hidden_states.size()
        query = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        key = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        value = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        cos, sin = position_embeddings
        query, key = apply_rotary_pos_emb(query, key, cos, sin)
        block_mask = create_block_mask(causal_mask, B=None, H=None, Q_LEN=q_len, KV_LEN=q_len, device=query.device)
        out = flex_attention(query, key, value, block_mask=block_mask, enable_gqa=True)  # expect: TCK918
        out = out.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(out), None
