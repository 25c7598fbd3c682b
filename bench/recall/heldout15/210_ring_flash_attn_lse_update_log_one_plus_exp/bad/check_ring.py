import torch

from ring_attn import ring_attention_forward


def main():
    torch.manual_seed(0)
    b, s, h, d, world = 2, 16, 4, 32, 4
    q = torch.randn(b, s, h, d) * 4
    k = torch.randn(b, s * world, h, d) * 4
    v = torch.randn(b, s * world, h, d)
    out, lse = ring_attention_forward(q, k.chunk(world, dim=1), v.chunk(world, dim=1))
    ref = torch.softmax(torch.einsum("bqhd,bkhd->bhqk", q, k) / d**0.5, dim=-1)
    ref_out = torch.einsum("bhqk,bkhd->bqhd", ref, v)
    print("max abs error", (out - ref_out).abs().max().item(), "finite", torch.isfinite(lse).all().item())


if __name__ == "__main__":
    main()
