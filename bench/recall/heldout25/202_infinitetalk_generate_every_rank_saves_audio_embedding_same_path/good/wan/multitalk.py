import logging

import torch
import torch.distributed as dist
from torch import nn


class AudioConditionedDiT(nn.Module):
    """Stand-in for the audio-conditioned video diffusion transformer."""

    def __init__(self, audio_dim=768, dim=256):
        super().__init__()
        self.audio_proj = nn.Linear(audio_dim, dim)
        self.blocks = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, 3 * 16 * 16))

    def forward(self, audio_tokens):
        return self.blocks(self.audio_proj(audio_tokens))


class InfiniteTalkPipeline:
    def __init__(self, config, checkpoint_dir, device_id=0, rank=0, use_usp=False):
        self.config = config
        self.checkpoint_dir = checkpoint_dir
        self.device = torch.device(f"cuda:{device_id}")
        self.rank = rank
        self.use_usp = use_usp
        self.model = AudioConditionedDiT().to(self.device).eval()

    @torch.no_grad()
    def generate_infinitetalk(self, input_clip, frame_num=81, sampling_steps=40, seed=42):
        # every rank reads the embeddings the script wrote for this clip
        audio_embs = []
        for person, audio_embedding_path in input_clip["cond_audio"].items():
            full_audio_emb = torch.load(audio_embedding_path)
            audio_embs.append(full_audio_emb[:frame_num].mean(dim=1))
            logging.info(f"{person}: audio embedding {tuple(full_audio_emb.shape)}")
        audio = torch.stack(audio_embs).mean(dim=0).to(self.device)

        g = torch.Generator(device=self.device).manual_seed(seed)
        latents = torch.randn(audio.shape[0], 3 * 16 * 16, device=self.device, generator=g)
        for _ in range(sampling_steps):
            latents = latents - 0.02 * (latents - self.model(audio))
        if self.use_usp and dist.is_initialized():
            dist.barrier()
        return latents.view(-1, 3, 16, 16).permute(1, 0, 2, 3).cpu()
