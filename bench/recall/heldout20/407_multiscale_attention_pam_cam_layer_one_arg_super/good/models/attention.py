import torch
import torch.nn as nn


class PAM_Module(nn.Module):
    """Position attention (SAGAN style): every pixel attends over all pixels."""

    def __init__(self, in_dim):
        super(PAM_Module, self).__init__()
        self.query_conv = nn.Conv2d(in_dim, in_dim // 8, kernel_size=1)
        self.key_conv = nn.Conv2d(in_dim, in_dim // 8, kernel_size=1)
        self.value_conv = nn.Conv2d(in_dim, in_dim, kernel_size=1)
        self.gamma = nn.Parameter(torch.zeros(1))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        b, c, h, w = x.size()
        query = self.query_conv(x).view(b, -1, h * w).permute(0, 2, 1)
        key = self.key_conv(x).view(b, -1, h * w)
        attention = self.softmax(torch.bmm(query, key))
        value = self.value_conv(x).view(b, -1, h * w)
        out = torch.bmm(value, attention.permute(0, 2, 1)).view(b, c, h, w)
        return self.gamma * out + x


class CAM_Module(nn.Module):
    """Channel attention: every channel attends over all channels."""

    def __init__(self, in_dim):
        super(CAM_Module, self).__init__()
        self.gamma = nn.Parameter(torch.zeros(1))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        b, c, h, w = x.size()
        query = x.view(b, c, -1)
        energy = torch.bmm(query, x.view(b, c, -1).permute(0, 2, 1))
        energy = torch.max(energy, -1, keepdim=True)[0].expand_as(energy) - energy
        out = torch.bmm(self.softmax(energy), x.view(b, c, -1)).view(b, c, h, w)
        return self.gamma * out + x


class PAM_CAM_Layer(nn.Module):
    """Conv - BN - PReLU around a position or a channel attention module."""

    def __init__(self, in_ch, use_pam=True):
        super(PAM_CAM_Layer, self).__init__()

        self.attn = nn.Sequential(
            nn.Conv2d(in_ch * 2, in_ch, kernel_size=3, padding=1),
            nn.BatchNorm2d(in_ch),
            nn.PReLU(),
            PAM_Module(in_ch) if use_pam else CAM_Module(in_ch),
            nn.Conv2d(in_ch, in_ch, kernel_size=3, padding=1),
            nn.BatchNorm2d(in_ch),
            nn.PReLU(),
        )

    def forward(self, x):
        return self.attn(x)


class MultiConv(nn.Module):
    """Three convolutions; ends with a spatial softmax when used as an attention map."""

    def __init__(self, in_ch, out_ch, attn=True):
        super(MultiConv, self).__init__()
        self.fuse_attn = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_ch),
            nn.PReLU(),
            nn.Conv2d(out_ch, out_ch, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_ch),
            nn.PReLU(),
            nn.Conv2d(out_ch, out_ch, kernel_size=1),
            nn.BatchNorm2d(out_ch),
            nn.Softmax2d() if attn else nn.PReLU(),
        )

    def forward(self, x):
        return self.fuse_attn(x)
