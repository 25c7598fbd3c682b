"""Pose autoencoder whose encoder half is used as the feature extractor for FID."""
import torch
import torch.nn as nn


def conv_bn_act(c_in, c_out, downsample=False):
    kernel, stride = (4, 2) if downsample else (3, 1)
    return nn.Sequential(
        nn.Conv1d(c_in, c_out, kernel_size=kernel, stride=stride),
        nn.BatchNorm1d(c_out),
        nn.LeakyReLU(0.2, True),
    )


class PoseEncoderConv(nn.Module):
    def __init__(self, length, dim, feature_length=32):
        super().__init__()
        base = feature_length
        self.net = nn.Sequential(
            conv_bn_act(dim, base),
            conv_bn_act(base, base * 2),
            conv_bn_act(base * 2, base * 2, downsample=True),
            nn.Conv1d(base * 2, base, 3),
        )
        self.out_net = nn.Sequential(
            nn.Linear(12 * base, base * 4),
            nn.BatchNorm1d(base * 4),
            nn.LeakyReLU(True),
            nn.Linear(base * 4, base * 2),
            nn.BatchNorm1d(base * 2),
            nn.LeakyReLU(True),
            nn.Linear(base * 2, base),
        )
        self.fc_mu = nn.Linear(base, base)

    def forward(self, poses):
        h = self.net(poses.transpose(1, 2)).flatten(1)
        return self.fc_mu(self.out_net(h))


class PoseDecoderConv(nn.Module):
    def __init__(self, length, dim, feature_length=32):
        super().__init__()
        self.length = length
        self.dim = dim
        self.net = nn.Sequential(
            nn.Linear(feature_length, feature_length * 2),
            nn.BatchNorm1d(feature_length * 2),
            nn.LeakyReLU(True),
            nn.Linear(feature_length * 2, length * dim),
        )

    def forward(self, feat):
        return self.net(feat).view(-1, self.length, self.dim)


class HalfEmbeddingNet(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.pose_encoder = PoseEncoderConv(args.pose_length, args.pose_dims, feature_length=args.vae_length)
        self.decoder = PoseDecoderConv(args.pose_length, args.pose_dims, feature_length=args.vae_length)

    def forward(self, poses):
        return self.pose_encoder(poses)
