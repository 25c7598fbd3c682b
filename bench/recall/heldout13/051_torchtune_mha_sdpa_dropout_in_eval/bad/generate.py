import torch
from torch import nn

from attention import TransformerLayer


class TinyDecoder(nn.Module):
    def __init__(self, vocab_size=1000, dim=256, heads=8, layers=4, attn_dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([TransformerLayer(dim, heads, attn_dropout) for _ in range(layers)])
        self.out = nn.Linear(dim, vocab_size)

    def forward(self, tokens):
        h = self.tok(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.out(h)


@torch.inference_mode()
def greedy_decode(model, prompt, max_new_tokens=20):
    model.eval()
    tokens = prompt
    for _ in range(max_new_tokens):
        logits = model(tokens)
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        tokens = torch.cat([tokens, next_token], dim=1)
    return tokens


if __name__ == "__main__":
    model = TinyDecoder()
    prompt = torch.randint(0, 1000, (1, 8))
    first = greedy_decode(model, prompt)
    second = greedy_decode(model, prompt)
    print("deterministic:", torch.equal(first, second))
