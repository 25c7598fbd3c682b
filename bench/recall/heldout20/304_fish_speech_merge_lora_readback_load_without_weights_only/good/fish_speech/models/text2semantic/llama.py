from pathlib import Path

import torch
import torch.nn as nn


class LoraLinear(nn.Linear):
    def __init__(self, in_features, out_features, r=8, alpha=16):
        super().__init__(in_features, out_features, bias=False)
        self.lora_A = nn.Parameter(torch.zeros(r, in_features))
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=5 ** 0.5)
        self.scaling = alpha / r
        self.merged = False

    def train(self, mode=True):
        super().train(mode)
        if not mode and not self.merged:
            with torch.no_grad():
                self.weight += (self.lora_B @ self.lora_A) * self.scaling
            self.merged = True
        return self

    def forward(self, x):
        out = super().forward(x)
        if not self.merged:
            out = out + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling
        return out


class BaseTransformer(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, n_layers=8, lora_config=None):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim)
        if lora_config is None:
            self.layers = nn.ModuleList(nn.Linear(dim, dim, bias=False) for _ in range(n_layers))
        else:
            self.layers = nn.ModuleList(
                LoraLinear(dim, dim, r=lora_config["r"], alpha=lora_config["alpha"]) for _ in range(n_layers))
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens):
        x = self.embeddings(tokens)
        for layer in self.layers:
            x = x + torch.nn.functional.silu(layer(x))
        return self.output(x)

    @classmethod
    def from_pretrained(cls, path, load_weights=True, lora_config=None):
        model = cls(lora_config=lora_config)
        if load_weights:
            weights = torch.load(Path(path) / "model.pth", map_location="cpu", mmap=True, weights_only=True)
            missing, unexpected = model.load_state_dict(weights, strict=False, assign=True)
            if unexpected or any("lora" not in key for key in missing):
                raise RuntimeError(f"checkpoint mismatch: {missing=} {unexpected=}")
        return model

    def save_pretrained(self, path, drop_lora=False):
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        state_dict = self.state_dict()
        if drop_lora:
            state_dict = {k: v for k, v in state_dict.items() if "lora" not in k}
        torch.save(state_dict, path / "model.pth")
