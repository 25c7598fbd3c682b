import torch

from lizrd.core import nn
from research.conditional.moe_layers.token_choice import TokenChoiceFF


class FeedForward(nn.Module):
    def __init__(self, dmodel, dff):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dmodel, dff), nn.ReLU(), nn.Linear(dff, dmodel))

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    def __init__(self, dmodel, heads, ff_layer):
        super().__init__()
        self.ln1 = nn.LayerNorm(dmodel)
        self.attn = torch.nn.MultiheadAttention(dmodel, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dmodel)
        self.ff = ff_layer()

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class LM(nn.Module):
    def __init__(self, vocab_size, dmodel, n_blocks, heads, ff_layer):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dmodel)
        self.blocks = nn.ModuleList([Block(dmodel, heads, ff_layer) for _ in range(n_blocks)])
        self.head = nn.Linear(dmodel, vocab_size)

    def forward(self, tokens):
        x = self.embedding(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def get_ff_layer(args):
    if args.ff_mode == "vanilla":
        return lambda: FeedForward(args.dmodel, args.dff)
    if args.ff_mode == "token_choice":
        return lambda: TokenChoiceFF(dmodel=args.dmodel, n_experts=args.n_experts, expert_size=args.expert_size)
    raise NotImplementedError(f"FF mode {args.ff_mode} not implemented")


def get_model(args, device):
    model = LM(args.vocab_size, args.dmodel, args.n_blocks, args.n_att_heads, get_ff_layer(args))
    return model.to(device)
