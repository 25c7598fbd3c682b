"""LoTD grid encoding + density decoder + radiance decoder."""
from typing import Callable, Union

import torch
import torch.nn as nn

from nr3d_lib.maths import trunc_exp
from nr3d_lib.models.embedders import get_embedder
from nr3d_lib.models.grid_encodings.lotd import LoTDEncoding
from nr3d_lib.models.grid_encodings.multires_decoder import get_multires_decoder
from nr3d_lib.models.fields.nerf.mlp_nerf import RadianceNet
from nr3d_lib.models.fields.nerf.renderer_mixin import NeRFRendererMixin


class LoTDNeRF(nn.Module):
    def __init__(self, encoding_cfg=dict(), density_decoder_cfg=dict(),
                 density_activation: Union[str, Callable] = None, extra_pos_embed_cfg: dict = None,
                 radiance_decoder_cfg=dict(), n_extra_feat_from_output: int = 0,
                 dtype=torch.float16, device=None):
        super().__init__()
        self.dtype = dtype
        self.n_extra_feat_from_output = n_extra_feat_from_output
        self.is_extra_feat_from_output = n_extra_feat_from_output > 0
        self.encoding = LoTDEncoding(3, dtype=self.dtype, device=device, **encoding_cfg)
        self.use_extra_embed = extra_pos_embed_cfg is not None
        in_dim = self.encoding.out_features
        if self.use_extra_embed:
            self.extra_embed_fn, n_embed = get_embedder(extra_pos_embed_cfg, 3)
            in_dim += n_embed
        self.density_decoder, _ = get_multires_decoder(
            self.encoding.lod_meta, in_dim, 1 + n_extra_feat_from_output, dtype=self.dtype, **density_decoder_cfg)
        self.density_activation = density_activation or (lambda x: trunc_exp(x))
        self.rgb_decoder = RadianceNet(
            n_extra_feat=n_extra_feat_from_output if self.is_extra_feat_from_output else self.encoding.out_features,
            dtype=self.dtype, device=device, **radiance_decoder_cfg)

    def _density_output(self, x: torch.Tensor):
        h = self.encoding(x)
        if self.use_extra_embed:
            h_embed = self.extra_embed_fn(x)
            return h, self.density_decoder(torch.cat([h, h_embed.to(h.dtype)], dim=-1))
        return h, self.density_decoder(h)

    def forward(self, x: torch.Tensor, *, v: torch.Tensor = None, h_appear: torch.Tensor = None,
                input_normalized=True):
        if not input_normalized:
            x = self.encoding.space.normalize_coords(x)
        h, output = self._density_output(x)
        sigma = self.density_activation(output[..., 0])
        h_extra = output[..., 1:] if self.is_extra_feat_from_output else h
        rgb = self.rgb_decoder(x, v=v, n=None, h_extra=h_extra, h_appear=h_appear)["rgb"]
        return dict(sigma=sigma, rgb=rgb)

    def forward_density(self, x: torch.Tensor, input_normalized=True):
        if not input_normalized:
            x = self.encoding.space.normalize_coords(x)
        _, output = self._density_output(x)
        return dict(sigma=self.density_activation(output[..., 0]))

    # Used by the occupancy-grid update of the renderer mixin: no gradient wanted.
    @torch.no_grad
    def query_density(self, x: torch.Tensor):
        _, output = self._density_output(x)
        return self.density_activation(output[..., 0])

    @torch.no_grad()
    def rescale_volume(self, new_aabb: torch.Tensor):
        return self.encoding.rescale_volume(new_aabb)


class LoTDNeRFModel(NeRFRendererMixin, LoTDNeRF):
    use_view_dirs = True
    fwd_density_use_view_dirs = False
