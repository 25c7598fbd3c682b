import torch
from torch.utils.data import Dataset

from frame_data import FrameData
from structures import Cameras, PointCloud


class SequenceFrameDataset(Dataset):
    frame_data_type = FrameData

    def __init__(self, n_sequences=4, frames_per_sequence=20, image_size=64):
        self.image_size = image_size
        self.clouds = [PointCloud(points=torch.randn(500 + 10 * s, 3)) for s in range(n_sequences)]
        self.index = [(s, f) for s in range(n_sequences) for f in range(frames_per_sequence)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        seq, frame = self.index[i]
        size = self.image_size
        return self.frame_data_type(
            frame_number=torch.tensor(frame),
            sequence_name=f"seq_{seq:03d}",
            image_rgb=torch.rand(3, size, size),
            fg_probability=torch.rand(1, size, size),
            depth_map=torch.rand(1, size, size),
            camera=Cameras(R=torch.eye(3)[None], T=torch.zeros(1, 3), focal_length=torch.ones(1, 2)),
            sequence_point_cloud=self.clouds[seq],
            meta={"seq": seq},
        )
