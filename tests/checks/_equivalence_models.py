"""Correct models that break the assumptions of the equivalence checks: randomness
spelled without ``nn.Dropout``, forwards with side effects, batch-coupled terms.

Each random model draws at two places per forward: with a single draw, the CPU
generator's sequential stream happens to give a batch the masks of its micro-batches."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

Batch = tuple[torch.Tensor, torch.Tensor]

# ---------------------------------------------------------- randomness, spelled otherwise


class FunctionalDropout(nn.Module):
    def __init__(self, features: int = 4) -> None:
        super().__init__()
        self.hidden = nn.Linear(features, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.dropout(x, p=0.2, training=self.training)
        return self.out(F.dropout(torch.tanh(self.hidden(x)), p=0.5, training=self.training))


class DropPath(nn.Module):
    """Stochastic depth, as timm writes it: a per-sample Bernoulli mask from bernoulli_."""

    def __init__(self, drop_prob: float) -> None:
        super().__init__()
        self.keep = 1.0 - drop_prob

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return x
        mask = x.new_empty((x.shape[0],) + (1,) * (x.dim() - 1)).bernoulli_(self.keep)
        return x * mask.div_(self.keep)


class ResidualWithDropPath(nn.Module):
    def __init__(self, features: int = 4) -> None:
        super().__init__()
        self.inner = nn.ModuleList(nn.Linear(features, features) for _ in range(2))
        self.drop_path = DropPath(0.3)
        self.head = nn.Linear(features, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.inner:
            x = x + self.drop_path(torch.tanh(layer(x)))
        return self.head(x)


class LstmWithDropout(nn.Module):
    """(batch, time, features) -> (batch, 1), two layers with dropout between them."""

    def __init__(self, features: int = 4) -> None:
        super().__init__()
        self.lstm = nn.LSTM(features, 8, num_layers=3, dropout=0.5, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 2:
            x = x[:, None, :].expand(-1, 3, -1)
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class AttentionDropout(nn.Module):
    """Self-attention over a 3-token view of each sample, with ``dropout_p``."""

    def __init__(self, features: int = 4) -> None:
        super().__init__()
        self.qkv = nn.Linear(1, 12)
        self.head = nn.Linear(features * 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x[..., None]).chunk(3, dim=-1)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5 if self.training else 0.0)
        y = F.scaled_dot_product_attention(y, y, y, dropout_p=0.5 if self.training else 0.0)
        return self.head(y.flatten(1))


def tiny_t5_with_dropout() -> nn.Module:
    """Hidden dropout through nn.Dropout, attention dropout through F.dropout."""
    import transformers

    config = transformers.T5Config(
        vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
        dropout_rate=0.3, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
    )
    return transformers.T5ForConditionalGeneration(config)


def tiny_llama_with_attention_dropout() -> nn.Module:
    """Attention dropout as scaled_dot_product_attention's dropout_p."""
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=32, attention_dropout=0.3, pad_token_id=0,
    )
    return transformers.LlamaForCausalLM(config)


# ----------------------------------------------------------- forwards with side effects


def hook_spectral_norm() -> nn.Module:
    """The old hook-based spectral norm: ``weight_u`` is updated in every train forward."""
    return nn.Sequential(nn.utils.spectral_norm(nn.Linear(4, 16)), nn.Tanh(), nn.Linear(16, 1))


def parametrized_spectral_norm() -> nn.Module:
    return nn.Sequential(nn.utils.parametrizations.spectral_norm(nn.Linear(4, 16)), nn.Tanh(), nn.Linear(16, 1))


class DataEma(nn.Module):
    """Keeps an exponential moving average of its inputs in a buffer (a VQ codebook's
    update, a running statistic): every forward updates it from its batch."""

    def __init__(self, features: int = 4) -> None:
        super().__init__()
        self.fc = nn.Linear(features, 1)
        self.register_buffer("average", torch.zeros(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            with torch.no_grad():
                self.average.mul_(0.9).add_(0.1 * x.mean(dim=0))
        return self.fc(x)


class Router(nn.Module):
    """Top-1 routing with a Switch-style load-balancing loss, kept as ``self.aux_loss``."""

    def __init__(self, features: int, experts: int) -> None:
        super().__init__()
        self.gate = nn.Linear(features, experts)
        self.experts = experts
        self.aux_loss = torch.zeros(())

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        probs = self.gate(x).softmax(dim=-1)
        weight, choice = probs.max(dim=-1)
        fraction = F.one_hot(choice, self.experts).float().mean(dim=0)
        self.aux_loss = self.experts * (fraction * probs.mean(dim=0)).sum()
        return weight, choice


class MixtureOfExperts(nn.Module):
    def __init__(self, features: int = 4, experts: int = 3) -> None:
        super().__init__()
        self.router = Router(features, experts)
        self.experts = nn.ModuleList(nn.Linear(features, features) for _ in range(experts))
        self.head = nn.Linear(features, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, choice = self.router(x)
        out = torch.zeros_like(x)
        for index, expert in enumerate(self.experts):
            chosen = (choice == index).nonzero(as_tuple=True)[0]
            out = out.index_add(0, chosen, expert(x[chosen]) * weight[chosen, None])
        return self.head(x + out)


def moe_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The task loss plus the router's load-balancing loss, as MoE training adds them."""
    inner = getattr(model, "module", model)
    return F.mse_loss(model(x), y) + 0.5 * inner.router.aux_loss
