import torch
import torch.nn as nn
import torch.nn.functional as F


class MLPBlock(nn.Module):
    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.act = nn.GELU()
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.linear2(self.act(self.linear1(x)))


class FastCLIPEncoderLayer(nn.Module):
    """Pre-norm encoder layer whose attention must run on a fused SDPA kernel."""

    def __init__(self, d_model: int, num_heads: int, d_ff: int):
        super().__init__()
        assert d_model % num_heads == 0
        self.d_model = d_model
        self.num_heads = num_heads
        self.norm1 = nn.LayerNorm(d_model)
        self.qkv_proj = nn.Linear(d_model, d_model * 3)
        self.out_proj = nn.Linear(d_model, d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = MLPBlock(d_model, d_ff)

    def forward(self, x):
        bsz, src_len, embed_dim = x.shape
        head_dim = embed_dim // self.num_heads
        q, k, v = self.qkv_proj(self.norm1(x)).split(self.d_model, dim=-1)
        q = q.view(bsz, src_len, self.num_heads, head_dim).transpose(1, 2)
        k = k.view(bsz, src_len, self.num_heads, head_dim).transpose(1, 2)
        v = v.view(bsz, src_len, self.num_heads, head_dim).transpose(1, 2)

        with torch.backends.cuda.sdp_kernel(enable_math=False):  # expect: TCK903
            out = F.scaled_dot_product_attention(q, k, v)
            out = out.transpose(1, 2).contiguous().view(bsz, src_len, embed_dim)

        x = x + self.out_proj(out)
        return x + self.mlp(self.norm2(x))


class MHAPoolingHead(nn.Module):
    """Cross-attention pooling: a learned query attends over the patch tokens."""

    def __init__(self, hidden_size: int, num_heads: int, out_dim: int, out_seq_len: int = 1):
        super().__init__()
        self.out_seq_len = out_seq_len
        self.embed_dim = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.query = nn.Parameter(torch.zeros(1, out_seq_len, hidden_size))
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.kv_proj = nn.Linear(hidden_size, hidden_size * 2)
        self.out_proj = nn.Linear(hidden_size, out_dim)
        nn.init.normal_(self.query, std=0.02)

    def forward(self, kv_states):
        bsz, src_len, embed_dim = kv_states.size()
        tgt_len = self.out_seq_len
        kv = self.kv_proj(kv_states)
        q = self.q_proj(self.query.expand(bsz, -1, -1))
        k, v = kv[:, :, :embed_dim], kv[:, :, embed_dim:]
        q = q.view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = k.view(bsz, src_len, self.num_heads, self.head_dim).transpose(1, 2)
        v = v.view(bsz, src_len, self.num_heads, self.head_dim).transpose(1, 2)

        with torch.backends.cuda.sdp_kernel(enable_math=False):  # expect: TCK903
            x = F.scaled_dot_product_attention(q, k, v)
            x = x.transpose(1, 2).contiguous().view(bsz, tgt_len, embed_dim)

        return self.out_proj(x)


class ViT(nn.Module):
    def __init__(self, num_tags: int, image_size: int = 448, patch_size: int = 14, d_model: int = 256,
                 num_heads: int = 8, num_layers: int = 4):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, d_model, kernel_size=patch_size, stride=patch_size)
        num_patches = (image_size // patch_size) ** 2
        self.pos_embedding = nn.Parameter(torch.zeros(1, num_patches, d_model))
        self.layers = nn.ModuleList(FastCLIPEncoderLayer(d_model, num_heads, d_model * 4) for _ in range(num_layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = MHAPoolingHead(d_model, num_heads, num_tags)
        nn.init.normal_(self.pos_embedding, std=0.02)

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2) + self.pos_embedding
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x)).squeeze(1)
