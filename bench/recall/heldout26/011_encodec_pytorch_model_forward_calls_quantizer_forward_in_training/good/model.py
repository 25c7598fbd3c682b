"""EnCodec model implementation (training fork)."""
import math
import random
import typing as tp

import numpy as np
import torch
from torch import nn

import modules as m
import quantization as qt

EncodedFrame = tp.Tuple[torch.Tensor, tp.Optional[torch.Tensor]]


class EncodecModel(nn.Module):
    def __init__(self,
                 encoder: m.SEANetEncoder,
                 decoder: m.SEANetDecoder,
                 quantizer: qt.ResidualVectorQuantizer,
                 target_bandwidths: tp.List[float],
                 sample_rate: int,
                 channels: int,
                 normalize: bool = False,
                 name: str = "unset"):
        super().__init__()
        self.bandwidth: tp.Optional[float] = None
        self.target_bandwidths = target_bandwidths
        self.encoder = encoder
        self.quantizer = quantizer
        self.decoder = decoder
        self.sample_rate = sample_rate
        self.channels = channels
        self.normalize = normalize
        self.frame_rate = math.ceil(self.sample_rate / np.prod(self.encoder.ratios))
        self.name = name

    def encode(self, x: torch.Tensor) -> tp.List[EncodedFrame]:
        if self.normalize:
            mono = x.mean(dim=1, keepdim=True)
            scale = mono.pow(2).mean(dim=2, keepdim=True).sqrt() + 1e-8
            x = x / scale
            scale = scale.view(-1, 1)
        else:
            scale = None
        emb = self.encoder(x)
        if self.training:
            return [(emb, scale)]
        codes = self.quantizer.encode(emb, self.frame_rate, self.bandwidth)
        return [(codes, scale)]

    def decode(self, encoded_frames: tp.List[EncodedFrame]) -> torch.Tensor:
        codes, scale = encoded_frames[0]
        emb = codes if self.training else self.quantizer.decode(codes)
        out = self.decoder(emb)
        if scale is not None:
            out = out * scale.view(-1, 1, 1)
        return out

    def forward(self, x: torch.Tensor):
        frames = self.encode(x)
        if self.training:
            # training: waveform -> encoder -> quantizer forward (commitment loss) -> decoder
            loss_w = torch.tensor([0.0], device=x.device, requires_grad=True)
            codes = []
            self.quantizer.train(self.training)
            # one bandwidth per step, the same on every rank
            index = torch.tensor(random.randint(0, len(self.target_bandwidths) - 1), device=x.device)
            if torch.distributed.is_initialized():
                torch.distributed.broadcast(index, src=0)
            bw = self.target_bandwidths[index.item()]
            for emb, scale in frames:
                qv = self.quantizer(emb, self.frame_rate, bw)
                loss_w = loss_w + qv.penalty
                codes.append((qv.quantized, scale))
            return self.decode(codes)[:, :, :x.shape[-1]], loss_w, frames
        # inference: waveform -> encoder -> quantizer encode -> decode
        return self.decode(frames)[:, :, :x.shape[-1]]

    def set_target_bandwidth(self, bandwidth: float):
        if bandwidth not in self.target_bandwidths:
            raise ValueError(f"This model doesn't support the bandwidth {bandwidth}. "
                             f"Select one of {self.target_bandwidths}.")
        self.bandwidth = bandwidth

    @staticmethod
    def _get_model(target_bandwidths: tp.List[float], sample_rate: int = 24_000, channels: int = 1,
                   causal: bool = True, model_norm: str = "weight_norm", audio_normalize: bool = False,
                   name: str = "unset"):
        encoder = m.SEANetEncoder(channels=channels, norm=model_norm, causal=causal)
        decoder = m.SEANetDecoder(channels=channels, norm=model_norm, causal=causal)
        n_q = int(1000 * target_bandwidths[-1] // (math.ceil(sample_rate / encoder.hop_length) * 10))
        quantizer = qt.ResidualVectorQuantizer(dimension=encoder.dimension, n_q=n_q, bins=1024)
        return EncodecModel(encoder, decoder, quantizer, target_bandwidths, sample_rate, channels,
                            normalize=audio_normalize, name=name)

    @staticmethod
    def my_encodec_model(checkpoint: str):
        model = EncodecModel._get_model([1.5, 3., 6, 12., 24.], 24_000, 1, causal=False,
                                        model_norm="time_group_norm", audio_normalize=True, name="my_encodec")
        state = torch.load(checkpoint, map_location="cpu")
        model.load_state_dict({k.replace("quantizer.model", "quantizer.vq"): v for k, v in state.items()})
        return model
