from dataclasses import dataclass

import torch


@dataclass
class PointCloud:
    points: torch.Tensor


@dataclass
class Cameras:
    R: torch.Tensor
    T: torch.Tensor
    focal_length: torch.Tensor


def join_pointclouds_as_batch(clouds):
    return PointCloud(points=torch.nn.utils.rnn.pad_sequence([c.points for c in clouds], batch_first=True))


def join_cameras_as_batch(cameras):
    return Cameras(
        R=torch.cat([c.R for c in cameras]),
        T=torch.cat([c.T for c in cameras]),
        focal_length=torch.cat([c.focal_length for c in cameras]),
    )
