import torch
import torch.nn as nn


def compute_default_rope_parameters(config, device=None):
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim))
    return inv_freq, 1.0


class TextRotaryEmbedding(nn.Module):
    def __init__(self, config, device=None):
        super().__init__()
        self.config = config
        inv_freq, self.attention_scaling = compute_default_rope_parameters(config, device)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.register_buffer("original_inv_freq", inv_freq.clone(), persistent=False)

    def reset_parameters(self):
        inv_freq, self.attention_scaling = compute_default_rope_parameters(self.config, self.inv_freq.device)
        self.inv_freq.copy_(inv_freq)
        self.original_inv_freq.copy_(inv_freq)

    @torch.no_grad()
    def forward(self, x, position_ids):
        freqs = position_ids[:, :, None].float() * self.inv_freq[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos() * self.attention_scaling, emb.sin() * self.attention_scaling


class TextModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(nn.Linear(config.hidden_size, config.hidden_size) for _ in range(config.num_hidden_layers))
        self.rotary_emb = TextRotaryEmbedding(config)


def build_on_gpu(config, state_dict):
    with torch.device("meta"):
        model = TextModel(config)
    model.to_empty(device="cuda")
    model.rotary_emb.reset_parameters()
    model.load_state_dict(state_dict, strict=False)
    return model
