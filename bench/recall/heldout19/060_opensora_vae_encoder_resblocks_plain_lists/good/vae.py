import functools

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalConv3d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=(3, 3, 3), strides=(1, 1, 1), **kwargs):
        super().__init__()
        self.time_pad = kernel_size[0] - 1
        self.space_pad = kernel_size[1] // 2
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, stride=strides, **kwargs)

    def forward(self, x):
        x = F.pad(x, (self.space_pad, self.space_pad, self.space_pad, self.space_pad, self.time_pad, 0))
        return self.conv(x)


class ResBlock(nn.Module):
    def __init__(self, in_channels, filters, conv_fn, activation_fn=nn.SiLU, num_groups=32):
        super().__init__()
        self.norm1 = nn.GroupNorm(num_groups, in_channels)
        self.conv1 = conv_fn(in_channels, filters, kernel_size=(3, 3, 3), bias=False)
        self.norm2 = nn.GroupNorm(num_groups, filters)
        self.conv2 = conv_fn(filters, filters, kernel_size=(3, 3, 3), bias=False)
        self.act = activation_fn()
        self.shortcut = nn.Conv3d(in_channels, filters, 1) if in_channels != filters else nn.Identity()

    def forward(self, x):
        h = self.conv1(self.act(self.norm1(x)))
        h = self.conv2(self.act(self.norm2(h)))
        return self.shortcut(x) + h


class Encoder(nn.Module):
    def __init__(self, latent_embed_dim=4, filters=64, num_res_blocks=2, channel_multipliers=(1, 2, 2, 4),
                 temporal_downsample=(False, True, True), num_groups=32):
        super().__init__()
        self.filters = filters
        self.num_res_blocks = num_res_blocks
        self.channel_multipliers = channel_multipliers
        self.temporal_downsample = temporal_downsample
        self.conv_fn = functools.partial(CausalConv3d)
        self.block_args = dict(conv_fn=self.conv_fn, num_groups=num_groups)

        self.block_res_blocks = nn.ModuleList([])
        self.num_blocks = len(self.channel_multipliers)
        self.conv_blocks = nn.ModuleList([])

        filters = self.filters
        prev_filters = filters
        for i in range(self.num_blocks):
            filters = self.filters * self.channel_multipliers[i]
            block_items = nn.ModuleList([])
            for _ in range(self.num_res_blocks):
                block_items.append(ResBlock(prev_filters, filters, **self.block_args))
                prev_filters = filters
            self.block_res_blocks.append(block_items)
            if i < self.num_blocks - 1:
                t_stride = 2 if self.temporal_downsample[i] else 1
                self.conv_blocks.append(
                    self.conv_fn(prev_filters, filters, kernel_size=(3, 3, 3), strides=(t_stride, 2, 2))
                )
                prev_filters = filters

        self.res_blocks = nn.ModuleList([])
        for _ in range(self.num_res_blocks):
            self.res_blocks.append(ResBlock(prev_filters, filters, **self.block_args))
            prev_filters = filters

        self.norm1 = nn.GroupNorm(num_groups, prev_filters)
        self.activate = nn.SiLU()
        self.conv2 = nn.Conv3d(prev_filters, latent_embed_dim * 2, kernel_size=(1, 1, 1))

    def forward(self, x):
        for i in range(self.num_blocks):
            for j in range(self.num_res_blocks):
                x = self.block_res_blocks[i][j](x)
            if i < self.num_blocks - 1:
                x = self.conv_blocks[i](x)
        for i in range(self.num_res_blocks):
            x = self.res_blocks[i](x)
        return self.conv2(self.activate(self.norm1(x)))


class Decoder(nn.Module):
    def __init__(self, latent_embed_dim=4, filters=256, num_res_blocks=2, out_channels=64, num_groups=32):
        super().__init__()
        self.num_res_blocks = num_res_blocks
        conv_fn = functools.partial(CausalConv3d)
        self.conv1 = conv_fn(latent_embed_dim, filters, kernel_size=(3, 3, 3), bias=True)
        self.res_blocks = nn.ModuleList([])
        for _ in range(self.num_res_blocks):
            self.res_blocks.append(ResBlock(filters, filters, conv_fn=conv_fn, num_groups=num_groups))
        self.norm = nn.GroupNorm(num_groups, filters)
        self.conv_out = nn.Conv3d(filters, out_channels, kernel_size=(1, 1, 1))

    def forward(self, z):
        x = self.conv1(z)
        for i in range(self.num_res_blocks):
            x = self.res_blocks[i](x)
        return self.conv_out(F.silu(self.norm(x)))
