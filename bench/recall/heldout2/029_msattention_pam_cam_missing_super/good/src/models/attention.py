import torch
import torch.nn as nn

from .modules import CAM_Module, PAM_Module


class PAM_CAM_Layer(nn.Module):
    """Helper Function for PAM and CAM attention"""

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
