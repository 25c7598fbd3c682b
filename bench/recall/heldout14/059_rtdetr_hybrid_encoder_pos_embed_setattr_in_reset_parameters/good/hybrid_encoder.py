import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNormLayer(nn.Module):
    def __init__(self, ch_in, ch_out, kernel_size, stride):
        super().__init__()
        self.conv = nn.Conv2d(ch_in, ch_out, kernel_size, stride, padding=(kernel_size - 1) // 2, bias=False)
        self.norm = nn.BatchNorm2d(ch_out)

    def forward(self, x):
        return F.silu(self.norm(self.conv(x)))


class HybridEncoder(nn.Module):
    def __init__(self, in_channels=(512, 1024, 2048), feat_strides=(8, 16, 32), hidden_dim=256, nhead=8,
                 use_encoder_idx=(2,), pe_temperature=10000, eval_spatial_size=(640, 640)):
        super().__init__()
        self.in_channels = in_channels
        self.feat_strides = feat_strides
        self.hidden_dim = hidden_dim
        self.use_encoder_idx = use_encoder_idx
        self.pe_temperature = pe_temperature
        self.eval_spatial_size = eval_spatial_size
        self.input_proj = nn.ModuleList(
            nn.Sequential(nn.Conv2d(c, hidden_dim, 1, bias=False), nn.BatchNorm2d(hidden_dim)) for c in in_channels
        )
        layer = nn.TransformerEncoderLayer(hidden_dim, nhead, dim_feedforward=1024, dropout=0.0, batch_first=True)
        self.encoder = nn.ModuleList(nn.TransformerEncoder(layer, num_layers=1) for _ in use_encoder_idx)
        self.lateral_convs = nn.ModuleList(ConvNormLayer(hidden_dim, hidden_dim, 1, 1) for _ in in_channels[1:])
        self._reset_parameters()

    def _reset_parameters(self):
        if self.eval_spatial_size:
            for idx in self.use_encoder_idx:
                stride = self.feat_strides[idx]
                pos_embed = self.build_2d_sincos_position_embedding(
                    self.eval_spatial_size[1] // stride, self.eval_spatial_size[0] // stride,
                    self.hidden_dim, self.pe_temperature)
                self.register_buffer(f"pos_embed{idx}", pos_embed, persistent=False)

    @staticmethod
    def build_2d_sincos_position_embedding(w, h, embed_dim=256, temperature=10000.0):
        grid_w = torch.arange(int(w), dtype=torch.float32)
        grid_h = torch.arange(int(h), dtype=torch.float32)
        grid_w, grid_h = torch.meshgrid(grid_w, grid_h, indexing="ij")
        pos_dim = embed_dim // 4
        omega = torch.arange(pos_dim, dtype=torch.float32) / pos_dim
        omega = 1.0 / (temperature ** omega)
        out_w = grid_w.flatten()[..., None] @ omega[None]
        out_h = grid_h.flatten()[..., None] @ omega[None]
        return torch.concat([out_w.sin(), out_w.cos(), out_h.sin(), out_h.cos()], dim=1)[None, :, :]

    def forward(self, feats):
        proj_feats = [self.input_proj[i](feat) for i, feat in enumerate(feats)]
        for i, enc_ind in enumerate(self.use_encoder_idx):
            h, w = proj_feats[enc_ind].shape[2:]
            src_flatten = proj_feats[enc_ind].flatten(2).permute(0, 2, 1)
            if self.training or self.eval_spatial_size is None:
                pos_embed = self.build_2d_sincos_position_embedding(
                    w, h, self.hidden_dim, self.pe_temperature).to(src_flatten.device)
            else:
                pos_embed = getattr(self, f"pos_embed{enc_ind}")
            memory = self.encoder[i](src_flatten + pos_embed)
            proj_feats[enc_ind] = memory.permute(0, 2, 1).reshape(-1, self.hidden_dim, h, w).contiguous()
        outs = [proj_feats[-1]]
        for idx in range(len(self.in_channels) - 1, 0, -1):
            upsampled = F.interpolate(self.lateral_convs[idx - 1](outs[0]), scale_factor=2.0, mode="nearest")
            outs.insert(0, upsampled + proj_feats[idx - 1])
        return outs
