from types import SimpleNamespace

import torch
import torch.nn as nn

from init_functions import init_method_normal, scaled_init_method_normal
from transformer import ParallelTransformerLayer


class GPTNeoX(nn.Module):
    def __init__(self, neox_args):
        super().__init__()
        init_method = init_method_normal(neox_args.init_std)
        output_init = scaled_init_method_normal(neox_args.init_std, neox_args.num_layers)
        self.embed = nn.Embedding(neox_args.vocab_size, neox_args.hidden_size)
        self.layers = nn.ModuleList(
            [ParallelTransformerLayer(neox_args, init_method, output_init) for _ in range(neox_args.num_layers)])
        self.final_norm = nn.LayerNorm(neox_args.hidden_size)
        self.head = nn.Linear(neox_args.hidden_size, neox_args.vocab_size, bias=False)

    def forward(self, tokens):
        s = tokens.size(1)
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool, device=tokens.device), diagonal=1)
        x = self.embed(tokens).transpose(0, 1)
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.final_norm(x)).transpose(0, 1)


def main():
    neox_args = SimpleNamespace(hidden_size=512, num_attention_heads=8, num_layers=6, vocab_size=50304,
                                attention_dropout=0.0, init_std=0.02, qkv_conv=True)
    model = GPTNeoX(neox_args).cuda().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=6e-4, eps=1e-4)
    for step in range(1000):
        tokens = torch.randint(0, neox_args.vocab_size, (8, 129), device="cuda")
        logits = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.float().reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())
    torch.save(model.state_dict(), "neox_qkv_conv.pt")


if __name__ == "__main__":
    main()
