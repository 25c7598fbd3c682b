"""BrainOmni-style EEG/MEG foundation model (tokenizer cross-attention + spatial/temporal transformer)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange


class _RMSNorm(nn.Module):
    def __init__(self, n_dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(n_dim))

    def forward(self, x: torch.Tensor):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class _FeedForward(nn.Module):
    def __init__(self, n_dim, dropout):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_dim, 4 * n_dim), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(4 * n_dim, n_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class _SelfAttention(nn.Module):
    """Multi-head self-attention with optional causal masking."""

    def __init__(self, n_dim, n_head, dropout, causal: bool = False):
        super().__init__()
        assert n_dim % n_head == 0
        self.dropout = dropout
        self.n_dim = n_dim
        self.n_head = n_head
        self.causal = causal
        self.qkv = nn.Linear(n_dim, 3 * n_dim)
        self.proj = nn.Linear(n_dim, n_dim)

    def forward(self, x: torch.Tensor, mask=None):
        B, T, C = x.shape
        q, k, v = torch.split(self.qkv(x), split_size_or_sections=self.n_dim, dim=-1)
        q = rearrange(q, "B T (H D) -> B H T D", H=self.n_head)
        k = rearrange(k, "B T (H D) -> B H T D", H=self.n_head)
        v = rearrange(v, "B T (H D) -> B H T D", H=self.n_head)
        if mask is not None:
            mask = mask.unsqueeze(1)
        output = (
            F.scaled_dot_product_attention(
                query=q,
                key=k,
                value=v,
                attn_mask=mask,
                dropout_p=self.dropout if self.training else 0.0,
                is_causal=self.causal,
            )
            .transpose(1, 2)
            .contiguous()
        )
        return self.proj(output.view(B, T, -1))


class _SpatialTemporalAttentionBlock(nn.Module):
    """Half of the features attend over time (per channel), the other half over channels (per step)."""

    def __init__(self, n_dim, n_head, dropout, causal):
        super().__init__()
        self.pre_attn_norm = _RMSNorm(n_dim)
        self.time_attn = _SelfAttention(n_dim // 2, n_head // 2, dropout, causal=causal)
        self.spatial_attn = _SelfAttention(n_dim // 2, n_head // 2, dropout, causal=False)
        self.pre_ff_norm = _RMSNorm(n_dim)
        self.ff = _FeedForward(n_dim, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, W, D = x.shape
        h = self.pre_attn_norm(x)
        xs = rearrange(h[..., D // 2:], "B C W D -> (B W) C D")
        xt = rearrange(h[..., : D // 2], "B C W D -> (B C) W D")
        xs = rearrange(self.spatial_attn(xs), "(B W) C D -> B C W D", B=B)
        xt = rearrange(self.time_attn(xt), "(B C) W D -> B C W D", B=B)
        x = x + torch.cat([xs, xt], dim=-1)
        return x + self.ff(self.pre_ff_norm(x))


class _ForwardSolution(nn.Module):
    """Cross-attention: sensor embeddings query the neural tokens."""

    def __init__(self, n_dim: int, n_head: int, dropout: float) -> None:
        super().__init__()
        self.n_dim = n_dim
        self.n_head = n_head
        self.dropout = dropout
        self.kv = nn.Linear(n_dim, 2 * n_dim)
        self.proj = nn.Linear(n_dim, n_dim)

    def forward(self, sensor_embedding: torch.Tensor, neurons: torch.Tensor) -> torch.Tensor:
        B, C, _ = sensor_embedding.shape
        k, v = torch.split(self.kv(neurons), split_size_or_sections=self.n_dim, dim=-1)
        q = rearrange(sensor_embedding, "B T (H D) -> B H T D", H=self.n_head)
        k = rearrange(k, "B T (H D) -> B H T D", H=self.n_head)
        v = rearrange(v, "B T (H D) -> B H T D", H=self.n_head)
        output = (
            F.scaled_dot_product_attention(
                query=q,
                key=k,
                value=v,
                dropout_p=self.dropout if self.training else 0.0,
                is_causal=False,
            )
            .transpose(1, 2)
            .contiguous()
        )
        return self.proj(output.view(B, C, -1))


class _BackwardSolution(nn.Module):
    """Cross-attention: learned neural queries attend to the sensor-space keys and values."""

    def __init__(self, n_dim: int, n_head: int, dropout: float) -> None:
        super().__init__()
        self.n_dim = n_dim
        self.n_head = n_head
        self.dropout = dropout
        self.v = nn.Linear(n_dim, n_dim)
        self.proj = nn.Linear(n_dim, n_dim)

    def forward(self, neuros: torch.Tensor, k: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        B, N_q, _ = neuros.shape
        q = rearrange(neuros, "B T (H D) -> B H T D", H=self.n_head)
        k = rearrange(k, "B T (H D) -> B H T D", H=self.n_head)
        v = rearrange(self.v(x), "B T (H D) -> B H T D", H=self.n_head)
        output = (
            F.scaled_dot_product_attention(
                query=q,
                key=k,
                value=v,
                dropout_p=self.dropout if self.training else 0.0,
                is_causal=False,
            )
            .transpose(1, 2)
            .contiguous()
        )
        return self.proj(output.view(B, N_q, -1))


class BrainOmni(nn.Module):
    """Tokenise each channel's window, mix channels into latent neural queries, run the transformer."""

    def __init__(self, n_chans: int, n_outputs: int, n_times: int, patch: int = 50, n_dim: int = 128,
                 n_head: int = 8, n_neuro: int = 16, depth: int = 4, drop_prob: float = 0.1):
        super().__init__()
        self.patch = patch
        self.patch_embed = nn.Linear(patch, n_dim)
        self.sensor_embed = nn.Parameter(torch.randn(n_chans, n_dim) * 0.02)
        self.key_proj = nn.Linear(n_dim, n_dim)
        self.neuros = nn.Parameter(torch.randn(n_neuro, n_dim) * 0.02)
        self.backward_solution = _BackwardSolution(n_dim, n_head, drop_prob)
        self.blocks = nn.ModuleList(
            [_SpatialTemporalAttentionBlock(n_dim, n_head, drop_prob, causal=False) for _ in range(depth)]
        )
        self.forward_solution = _ForwardSolution(n_dim, n_head, drop_prob)
        self.head = nn.Linear(n_dim, n_outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, T = x.shape
        w = T // self.patch
        tokens = self.patch_embed(x[..., : w * self.patch].reshape(B, C, w, self.patch))
        tokens = tokens + self.sensor_embed[None, :, None, :]
        flat = rearrange(tokens, "B C W D -> (B W) C D")
        neuros = self.neuros.expand(flat.shape[0], -1, -1)
        latent = self.backward_solution(neuros, self.key_proj(flat), flat)
        latent = rearrange(latent, "(B W) N D -> B N W D", B=B)
        for block in self.blocks:
            latent = block(latent)
        pooled = latent.mean(2)
        sensors = self.sensor_embed.expand(B, -1, -1)
        per_channel = self.forward_solution(sensors, pooled)
        return self.head(per_channel.mean(1))
