"""Correct models for ``real_model_checks.py``: one builder per model, and the registry ``SUBJECTS``.

Transformers models are built from tiny configs (never ``from_pretrained``; no download),
with their default dropout and drop-path rates left on, as a user would have them. The
hand-built models each carry one mechanism a check has to live with: tied weights,
parametrizations, the old hook-based spectral norm, a packed RNN, activation
checkpointing, a compiled submodule, stochastic depth, BatchNorm.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The docs' loading recipe, as the tests hold it (one definition for docs, tests and bench).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.utils import parametrizations, parametrize  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

from tests.checks._loading import init_non_persistent_buffers, saved_like_save_pretrained  # noqa: E402

VOCAB = 64
SEQ = 8
BATCH = 4
IMAGE = 32
CLASSES = 10
MELS = 8
AUDIO_FRAMES = 16


@dataclass(frozen=True)
class Subject:
    """A correct model and how a user would feed and train it."""

    name: str
    make: Callable[[], nn.Module]
    inputs: Callable[[], Any]  # a tensor, or a dict / BatchEncoding passed as keyword arguments
    train_batch: Callable[[], Any]  # the inputs with their targets, for a training step
    loss: Callable[[nn.Module, Any], torch.Tensor]
    after_load: Callable[[nn.Module], None] | None = None
    family: str = ""
    #: what the user saves: ``model.state_dict()``, or tied tensors once as ``save_pretrained`` does
    checkpoint: Callable[[nn.Module], dict[str, torch.Tensor]] = lambda model: model.state_dict()


def _generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


# ------------------------------------------------------------- transformers glue


def _hf_loss(model: nn.Module, batch: Any) -> torch.Tensor:
    return model(**batch).loss


def _tokens(decoder: bool = False) -> dict[str, torch.Tensor]:
    generator = _generator()
    ids = torch.randint(1, VOCAB, (BATCH, SEQ), generator=generator)
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    mask[1, -2:] = 0
    data = {"input_ids": ids, "attention_mask": mask}
    if decoder:
        data["decoder_input_ids"] = torch.randint(1, VOCAB, (BATCH, SEQ), generator=generator)
    return data


def _with_labels(inputs: dict[str, torch.Tensor], labels: torch.Tensor) -> dict[str, torch.Tensor]:
    return {**inputs, "labels": labels}


def _hf_subject(name: str, family: str, make: Callable[[], nn.Module], inputs: Callable[[], dict],
                labels: Callable[[dict], torch.Tensor]) -> Subject:
    import transformers

    return Subject(
        name=f"hf-{name}", family=family, make=make,
        inputs=lambda: transformers.BatchEncoding(inputs()),
        train_batch=lambda: transformers.BatchEncoding(_with_labels(inputs(), labels(inputs()))),
        loss=_hf_loss, after_load=init_non_persistent_buffers, checkpoint=saved_like_save_pretrained,
    )


def _causal_lm(name: str, family: str, config_class: str, **config: Any) -> Subject:
    import transformers

    def make() -> nn.Module:
        settings = {"vocab_size": VOCAB, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0, **config}
        model_config = getattr(transformers, config_class)(**settings)
        return transformers.AutoModelForCausalLM.from_config(model_config)

    return _hf_subject(name, family, make, _tokens, lambda inputs: inputs["input_ids"])


def _decoder_lms() -> list[Subject]:
    attention = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                 "num_attention_heads": 4, "max_position_embeddings": 64}
    return [
        _causal_lm("llama-gqa", "decoder LM, grouped-query", "LlamaConfig", **attention, num_key_value_heads=2,
                   tie_word_embeddings=True),
        _causal_lm("mistral-swa", "decoder LM, sliding window", "MistralConfig", **attention, num_key_value_heads=2,
                   sliding_window=4),
        _causal_lm("qwen2-gqa", "decoder LM, grouped-query", "Qwen2Config", **attention, num_key_value_heads=1),
        _causal_lm("gemma2-swa", "decoder LM, sliding window + softcap", "Gemma2Config",
                   **{**attention, "num_hidden_layers": 2}, num_key_value_heads=2, head_dim=8, sliding_window=4,
                   query_pre_attn_scalar=8),
        _causal_lm("gpt2", "decoder LM", "GPT2Config", n_embd=32, n_layer=1, n_head=2, n_positions=64),
        _causal_lm("bloom-alibi", "decoder LM, ALiBi", "BloomConfig", hidden_size=32, n_layer=1, n_head=2),
        _causal_lm("mpt-alibi", "decoder LM, ALiBi", "MptConfig", d_model=32, n_heads=2, n_layers=1,
                   max_seq_len=64, expansion_ratio=2),
        _causal_lm("falcon-alibi", "decoder LM, ALiBi + multi-query", "FalconConfig", hidden_size=32,
                   num_hidden_layers=1, num_attention_heads=2, alibi=True, multi_query=True),
    ]


def _mixtures_of_experts() -> list[Subject]:
    common = {"hidden_size": 32, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4,
              "num_key_value_heads": 2, "max_position_embeddings": 64}
    return [
        _causal_lm("mixtral-moe", "mixture of experts", "MixtralConfig", **common, num_local_experts=4,
                   num_experts_per_tok=2),
        _causal_lm("qwen2-moe", "mixture of experts + shared expert", "Qwen2MoeConfig", **common, num_experts=4,
                   num_experts_per_tok=2, moe_intermediate_size=16, shared_expert_intermediate_size=16),
        _causal_lm("olmoe", "mixture of experts", "OlmoeConfig", **common, num_experts=4, num_experts_per_tok=2),
    ]


def _recurrent_lms() -> list[Subject]:
    return [
        _causal_lm("mamba", "state-space", "MambaConfig", hidden_size=32, state_size=8, num_hidden_layers=2,
                   expand=2, conv_kernel=4),
        _causal_lm("rwkv", "recurrent", "RwkvConfig", hidden_size=32, attention_hidden_size=32,
                   intermediate_size=64, num_hidden_layers=2, context_length=32),
        _causal_lm("recurrentgemma", "recurrent + local attention", "RecurrentGemmaConfig", hidden_size=32,
                   num_hidden_layers=3, num_attention_heads=2, num_key_value_heads=1, lru_width=32,
                   attention_window_size=4, intermediate_size=64, head_dim=16),
    ]


def _text_encoder_decoders() -> list[Subject]:
    import transformers

    def t5() -> nn.Module:
        return transformers.T5ForConditionalGeneration(transformers.T5Config(
            vocab_size=VOCAB, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2, decoder_start_token_id=0,
            pad_token_id=0, eos_token_id=1))

    def bart() -> nn.Module:
        return transformers.BartForConditionalGeneration(transformers.BartConfig(
            vocab_size=VOCAB, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
            pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2))

    return [
        _hf_subject("t5", "encoder-decoder, text", t5, lambda: _tokens(decoder=True), lambda i: i["input_ids"]),
        _hf_subject("bart", "encoder-decoder, text", bart, lambda: _tokens(decoder=True), lambda i: i["input_ids"]),
    ]


def _audio_encoder_decoders() -> list[Subject]:
    import transformers

    def whisper() -> nn.Module:
        return transformers.WhisperForConditionalGeneration(transformers.WhisperConfig(
            vocab_size=VOCAB, num_mel_bins=MELS, d_model=16, encoder_layers=1, decoder_layers=1,
            encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
            max_source_positions=AUDIO_FRAMES // 2, max_target_positions=32, pad_token_id=0, bos_token_id=0,
            eos_token_id=1, decoder_start_token_id=0, suppress_tokens=None, begin_suppress_tokens=None))

    def whisper_inputs() -> dict[str, torch.Tensor]:
        generator = _generator()
        return {"input_features": torch.randn(BATCH, MELS, AUDIO_FRAMES, generator=generator),
                "decoder_input_ids": torch.randint(1, VOCAB, (BATCH, SEQ), generator=generator)}

    def speech2text() -> nn.Module:
        return transformers.Speech2TextForConditionalGeneration(transformers.Speech2TextConfig(
            vocab_size=VOCAB, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_source_positions=64,
            max_target_positions=32, num_conv_layers=2, conv_kernel_sizes=[5, 5], conv_channels=16,
            input_feat_per_channel=MELS, input_channels=1, pad_token_id=1, bos_token_id=0, eos_token_id=2,
            decoder_start_token_id=2))

    def speech2text_inputs() -> dict[str, torch.Tensor]:
        generator = _generator()
        mask = torch.ones(BATCH, AUDIO_FRAMES, dtype=torch.long)
        mask[1, -4:] = 0
        return {"input_features": torch.randn(BATCH, AUDIO_FRAMES, MELS, generator=generator),
                "attention_mask": mask,
                "decoder_input_ids": torch.randint(3, VOCAB, (BATCH, SEQ), generator=generator)}

    return [
        _hf_subject("whisper", "encoder-decoder, audio", whisper, whisper_inputs, lambda i: i["decoder_input_ids"]),
        _hf_subject("speech2text", "encoder-decoder, audio", speech2text, speech2text_inputs,
                    lambda i: i["decoder_input_ids"]),
    ]


def _pixels() -> dict[str, torch.Tensor]:
    return {"pixel_values": torch.randn(BATCH, 3, IMAGE, IMAGE, generator=_generator())}


def _class_labels(count: int) -> Callable[[dict], torch.Tensor]:
    return lambda inputs: torch.arange(BATCH) % count


def _vision_and_multimodal() -> list[Subject]:
    import transformers

    def vit() -> nn.Module:
        return transformers.ViTForImageClassification(transformers.ViTConfig(
            image_size=IMAGE, patch_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=64, num_labels=CLASSES, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1))

    def convnext() -> nn.Module:
        return transformers.ConvNextForImageClassification(transformers.ConvNextConfig(
            num_channels=3, patch_size=4, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, image_size=IMAGE,
            num_labels=CLASSES, drop_path_rate=0.1))

    def clip() -> nn.Module:
        text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                "num_attention_heads": 2, "max_position_embeddings": 32, "projection_dim": 16,
                "bos_token_id": 0, "eos_token_id": 1, "pad_token_id": 1}
        vision = {"image_size": IMAGE, "patch_size": 8, "hidden_size": 32, "intermediate_size": 64,
                  "num_hidden_layers": 1, "num_attention_heads": 2, "projection_dim": 16}
        return transformers.CLIPModel(transformers.CLIPConfig(text_config=text, vision_config=vision,
                                                              projection_dim=16))

    def clip_inputs() -> dict[str, Any]:
        return {**_tokens(), **_pixels()}

    return [
        _hf_subject("vit", "vision", vit, _pixels, _class_labels(CLASSES)),
        _hf_subject("convnext", "vision, drop-path", convnext, _pixels, _class_labels(CLASSES)),
        Subject(name="hf-clip", family="multimodal, contrastive", make=clip,
                inputs=clip_inputs, train_batch=lambda: {**clip_inputs(), "return_loss": True},
                loss=_hf_loss, after_load=init_non_persistent_buffers, checkpoint=saved_like_save_pretrained),
    ]


def _encoders() -> list[Subject]:
    import transformers

    def bert() -> nn.Module:
        return transformers.BertForSequenceClassification(transformers.BertConfig(
            vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=64, num_labels=3))

    def albert() -> nn.Module:
        return transformers.AlbertForSequenceClassification(transformers.AlbertConfig(
            vocab_size=VOCAB, embedding_size=16, hidden_size=32, num_hidden_layers=3, num_hidden_groups=1,
            num_attention_heads=2, intermediate_size=64, max_position_embeddings=64, num_labels=3,
            hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, classifier_dropout_prob=0.1))

    return [
        _hf_subject("bert", "encoder", bert, _tokens, _class_labels(3)),
        _hf_subject("albert", "encoder, shared layers", albert, _tokens, _class_labels(3)),
    ]


def transformers_subjects() -> list[Subject]:
    try:
        import transformers  # noqa: F401
    except ImportError:
        return []
    return (_decoder_lms() + _mixtures_of_experts() + _recurrent_lms() + _text_encoder_decoders()
            + _audio_encoder_decoders() + _vision_and_multimodal() + _encoders())


# ------------------------------------------------------------------ hand-built


class SmallCnn(nn.Module):
    """Conv-norm-ReLU blocks, dropout and a linear head: the common image classifier."""

    def __init__(self, norm: str = "batch") -> None:
        super().__init__()

        def norm_layer(channels: int) -> nn.Module:
            return nn.BatchNorm2d(channels) if norm == "batch" else nn.GroupNorm(4, channels)

        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), norm_layer(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), norm_layer(32), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(32, CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class SpectralNormCnn(nn.Module):
    """A GAN-discriminator-style CNN with the old hook-based ``spectral_norm`` (``weight_u`` buffers)."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(
            nn.utils.spectral_norm(nn.Conv2d(3, 8, 3, stride=2, padding=1)), nn.LeakyReLU(0.2),
            nn.utils.spectral_norm(nn.Conv2d(8, 16, 3, stride=2, padding=1)), nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.utils.spectral_norm(nn.Linear(16, CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x))


class ParametrizedMlp(nn.Module):
    """Weights through ``torch.nn.utils.parametrize``: an orthogonal layer and a weight-normed one,
    with functional dropout."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = parametrizations.orthogonal(nn.Linear(3 * IMAGE * IMAGE // 16, 32))
        self.hidden = parametrizations.weight_norm(nn.Linear(32, 32))
        self.head = nn.Linear(32, CLASSES)
        assert parametrize.is_parametrized(self.inner)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.avg_pool2d(x, 4).flatten(1)
        x = F.dropout(torch.tanh(self.inner(x)), p=0.1, training=self.training)
        return self.head(torch.relu(self.hidden(x)))


class TiedLm(nn.Module):
    """An embedding tied to the output projection, with a GRU between them."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.rnn = nn.GRU(32, 32, batch_first=True)
        self.head = nn.Linear(32, VOCAB, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden, _ = self.rnn(self.embed(tokens))
        return self.head(hidden)


def _retie(model: TiedLm) -> None:
    """What the meta-load failure asks for: assign=True replaces each parameter on its own."""
    model.head.weight = model.embed.weight


class PackedLstm(nn.Module):
    """A two-layer LSTM with dropout between layers over padded sequences of different lengths."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(MELS, 24, num_layers=2, dropout=0.1, batch_first=True)
        self.head = nn.Linear(24, CLASSES)

    def forward(self, features: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = pack_padded_sequence(features, lengths.cpu(), batch_first=True, enforce_sorted=False)
        output, _ = self.lstm(packed)
        padded, _ = pad_packed_sequence(output, batch_first=True, total_length=features.shape[1])
        mask = (torch.arange(features.shape[1], device=features.device)[None, :] < lengths[:, None]).unsqueeze(-1)
        pooled = (padded * mask).sum(1) / lengths[:, None].to(padded.dtype)
        return self.head(pooled)


class SelfAttentionBlock(nn.Module):
    def __init__(self, width: int = 32, heads: int = 2, dropout: float = 0.1) -> None:
        super().__init__()
        self.heads = heads
        self.dropout = dropout
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, width = x.shape
        q, k, v = (t.reshape(batch, seq, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(self.norm1(x)).chunk(3, dim=-1))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                  dropout_p=self.dropout if self.training else 0.0)
        x = x + self.out(attended.transpose(1, 2).reshape(batch, seq, width))
        return x + F.dropout(self.mlp(self.norm2(x)), p=self.dropout, training=self.training)


class CheckpointedLm(nn.Module):
    """A small causal transformer whose blocks run under ``torch.utils.checkpoint`` while training."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.blocks = nn.ModuleList(SelfAttentionBlock() for _ in range(2))
        self.head = nn.Linear(32, VOCAB)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.training else block(x)
        return self.head(x)


class CompiledBlockLm(nn.Module):
    """A model with one submodule compiled in its constructor (``torch.compile(backend="eager")``)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.block = torch.compile(SelfAttentionBlock(dropout=0.0), backend="eager")
        self.head = nn.Linear(32, VOCAB)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.block(self.embed(tokens)))


class DropPath(nn.Module):
    """Stochastic depth as timm writes it: a per-sample ``bernoulli_`` mask, scaled by the keep rate."""

    def __init__(self, rate: float) -> None:
        super().__init__()
        self.rate = rate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.rate == 0.0:
            return x
        keep = 1.0 - self.rate
        mask = x.new_empty((x.shape[0],) + (1,) * (x.ndim - 1)).bernoulli_(keep)
        return x * mask / keep


class DropPathResNet(nn.Module):
    """Residual conv blocks (GroupNorm) whose branches are dropped per sample while training."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.branches = nn.ModuleList(
            nn.Sequential(nn.GroupNorm(4, 16), nn.Conv2d(16, 16, 3, padding=1), nn.GELU()) for _ in range(2))
        self.drop_path = nn.ModuleList(DropPath(rate) for rate in (0.1, 0.2))
        self.head = nn.Linear(16, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        for branch, drop_path in zip(self.branches, self.drop_path):
            x = x + drop_path(branch(x))
        return self.head(x.mean((2, 3)))


def _images() -> torch.Tensor:
    return torch.randn(BATCH, 3, IMAGE, IMAGE, generator=_generator())


def _image_loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    x, y = batch
    return F.cross_entropy(model(x), y)


def _image_subject(name: str, family: str, make: Callable[[], nn.Module]) -> Subject:
    return Subject(name=name, family=family, make=make, inputs=_images,
                   train_batch=lambda: (_images(), torch.arange(BATCH) % CLASSES), loss=_image_loss)


def _token_ids() -> torch.Tensor:
    return torch.randint(0, VOCAB, (BATCH, SEQ), generator=_generator())


def _lm_loss(model: nn.Module, tokens: torch.Tensor) -> torch.Tensor:
    logits = model(tokens[:, :-1])
    return F.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())


def _token_subject(name: str, family: str, make: Callable[[], nn.Module]) -> Subject:
    return Subject(name=name, family=family, make=make, inputs=_token_ids, train_batch=_token_ids, loss=_lm_loss)


def _sequences() -> dict[str, torch.Tensor]:
    lengths = torch.tensor([SEQ, 3, SEQ - 1, 5])[:BATCH]
    features = torch.randn(BATCH, SEQ, MELS, generator=_generator())
    features = features * (torch.arange(SEQ)[None, :, None] < lengths[:, None, None])
    return {"features": features, "lengths": lengths}


def _sequence_loss(model: nn.Module, batch: tuple[dict[str, torch.Tensor], torch.Tensor]) -> torch.Tensor:
    inputs, targets = batch
    return F.cross_entropy(model(**inputs), targets)


def hand_built_subjects() -> list[Subject]:
    return [
        _image_subject("cnn-batchnorm", "hand-built, BatchNorm", lambda: SmallCnn("batch")),
        _image_subject("cnn-groupnorm", "hand-built", lambda: SmallCnn("group")),
        _image_subject("spectral-norm-cnn", "hand-built, hook-based spectral_norm", SpectralNormCnn),
        _image_subject("parametrized-mlp", "hand-built, parametrize", ParametrizedMlp),
        _image_subject("drop-path-resnet", "hand-built, stochastic depth", DropPathResNet),
        Subject(name="tied-gru-lm", family="hand-built, tied weights", make=TiedLm, inputs=_token_ids,
                train_batch=_token_ids, loss=_lm_loss, after_load=_retie),
        _token_subject("checkpointed-lm", "hand-built, activation checkpointing", CheckpointedLm),
        _token_subject("compiled-block-lm", "hand-built, compiled submodule", CompiledBlockLm),
        Subject(name="packed-lstm", family="hand-built, packed RNN", make=PackedLstm, inputs=_sequences,
                train_batch=lambda: (_sequences(), torch.arange(BATCH) % CLASSES), loss=_sequence_loss),
    ]


def subjects() -> list[Subject]:
    return transformers_subjects() + hand_built_subjects()


# ---------------------------------------------------------------- timing model


def timing_subject() -> Subject:
    """A Llama of about 25k parameters, for the per-check timing table."""
    return _causal_lm("llama-25k", "timing", "LlamaConfig", hidden_size=32, intermediate_size=80,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
