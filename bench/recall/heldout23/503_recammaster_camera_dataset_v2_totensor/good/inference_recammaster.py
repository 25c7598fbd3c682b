import argparse
import json
import os

import imageio
import numpy as np
import pandas as pd
import torch
import torchvision
from einops import rearrange
from PIL import Image
from torchvision.transforms import v2


class TextVideoCameraDataset(torch.utils.data.Dataset):
    """Source videos and prompts, paired with the target camera trajectory to re-render them along."""

    def __init__(self, base_path, metadata_path, cam_type, num_frames=81, height=480, width=832):
        metadata = pd.read_csv(metadata_path)
        self.path = [os.path.join(base_path, "videos", name) for name in metadata["file_name"]]
        self.text = metadata["text"].to_list()
        self.cam_path = os.path.join(base_path, "cameras", "camera_extrinsics.json")
        self.cam_type = int(cam_type)
        self.num_frames = num_frames
        self.height = height
        self.width = width

        self.frame_process = v2.Compose([
            v2.CenterCrop(size=(height, width)),
            v2.Resize(size=(height, width), antialias=True),
            v2.ToImage(),
            v2.ToDtype(torch.float32, scale=True),
            v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]),
        ])

    def crop_and_resize(self, image):
        w, h = image.size
        scale = max(self.width / w, self.height / h)
        return torchvision.transforms.functional.resize(
            image, (round(h * scale), round(w * scale)),
            interpolation=torchvision.transforms.InterpolationMode.BILINEAR,
        )

    def load_video(self, file_path):
        reader = imageio.get_reader(file_path)
        frames = []
        for frame_id in range(self.num_frames):
            frame = Image.fromarray(reader.get_data(frame_id))
            frames.append(self.frame_process(self.crop_and_resize(frame)))
        reader.close()
        return rearrange(torch.stack(frames, dim=0), "T C H W -> C T H W")

    def load_camera(self, num_frames):
        with open(self.cam_path) as f:
            cams = json.load(f)
        poses = []
        for idx in range(0, num_frames, 4):
            rows = cams[f"frame{idx}"][f"cam{self.cam_type:02d}"].strip().split("] [")
            mat = np.array([[float(v) for v in r.replace("[", "").replace("]", "").split()] for r in rows])
            poses.append(torch.as_tensor(mat.T[:3, :], dtype=torch.float32).reshape(-1))
        return torch.stack(poses, dim=0)

    def __getitem__(self, index):
        video = self.load_video(self.path[index])
        return {"text": self.text[index], "video": video, "camera": self.load_camera(video.shape[1]).to(torch.bfloat16)}

    def __len__(self):
        return len(self.path)


def main():
    parser = argparse.ArgumentParser(description="ReCamMaster inference")
    parser.add_argument("--dataset_path", type=str, default="./example_test_data")
    parser.add_argument("--cam_type", type=str, default="1")
    parser.add_argument("--dataloader_num_workers", type=int, default=1)
    args = parser.parse_args()

    dataset = TextVideoCameraDataset(
        args.dataset_path, os.path.join(args.dataset_path, "metadata.csv"), args.cam_type
    )
    dataloader = torch.utils.data.DataLoader(
        dataset, shuffle=False, batch_size=1, num_workers=args.dataloader_num_workers
    )
    for batch_idx, batch in enumerate(dataloader):
        print(batch_idx, batch["text"], batch["video"].shape, batch["camera"].shape)


if __name__ == "__main__":
    main()
