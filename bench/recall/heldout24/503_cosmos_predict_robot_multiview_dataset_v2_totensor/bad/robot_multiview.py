import os
import re
from dataclasses import dataclass

import torch
import torchvision
import torchvision.transforms.v2
from PIL import Image
from torchvision import transforms

from camera_utils import load_agibot_cameras


@dataclass
class InferenceArguments:
    input_name: str
    prompt: str
    seed: int = 0


class TextImageCameraDataset(torch.utils.data.Dataset):
    """One sample per prompt: the three robot views repeated over time, plus cameras."""

    def __init__(self, base_path, inference_args, num_frames, input_video_res="480p"):
        self.base_path = base_path
        self.data = inference_args
        self.num_frames = num_frames
        self.latent_frames = num_frames // 4 + 1
        self.input_video_res = input_video_res
        if input_video_res == "720p":
            self.height, self.width = 704, 1280
        else:
            self.height, self.width = 432, 768

        self.frame_process = transforms.v2.Compose(
            [
                transforms.v2.CenterCrop(size=(self.height, self.width)),
                transforms.v2.Resize(size=(self.height, self.width), antialias=True),
                transforms.v2.ToTensor(),  # expect: TCK910
                transforms.v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]),
            ]
        )

    def crop_and_resize(self, image):
        width, height = image.size
        scale = max(self.width / width, self.height / height)
        return torchvision.transforms.functional.resize(
            image,
            (round(height * scale), round(width * scale)),
            interpolation=torchvision.transforms.InterpolationMode.BILINEAR,
        )

    def load_images(self, input_name):
        views = []
        for view in ("head", "hand_0", "hand_1"):
            image = Image.open(os.path.join(self.base_path, "input_images", f"{input_name}_{view}.png"))
            image = self.frame_process(self.crop_and_resize(image))
            views.append(image.unsqueeze(0).expand(self.num_frames, -1, -1, -1))
        return torch.cat(views, dim=0).permute(1, 0, 2, 3)  # C T H W

    def __getitem__(self, index):
        args = self.data[index]
        input_idx = int(re.search(r"(\d+)", args.input_name).group(1))
        extrinsics, intrinsics = load_agibot_cameras(
            self.base_path, input_idx, self.latent_frames, self.input_video_res == "720p"
        )
        return {
            "text": args.prompt,
            "video": self.load_images(args.input_name),
            "extrinsics": extrinsics,
            "intrinsics": intrinsics,
            "image_size": torch.tensor([self.height, self.width, self.height, self.width]),
        }

    def __len__(self):
        return len(self.data)


def inference(base_path, all_inference_args, generate, num_output_frames=93, num_workers=2):
    dataset = TextImageCameraDataset(base_path, all_inference_args, num_frames=num_output_frames)
    loader = torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False, num_workers=num_workers)
    videos = []
    for args, batch in zip(all_inference_args, loader):
        videos.append(
            generate(
                prompt=batch["text"][0],
                video=batch["video"],
                extrinsics=batch["extrinsics"],
                intrinsics=batch["intrinsics"],
                image_size=batch["image_size"],
                seed=args.seed,
            )
        )
    return videos
