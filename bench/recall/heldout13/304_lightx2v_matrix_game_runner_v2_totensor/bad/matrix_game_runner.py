import torch
from PIL import Image
from torch import nn
from torchvision.transforms import v2

from base_runner import BaseRunner


class TinyVAEEncoder(nn.Module):
    def __init__(self, z_dim=16):
        super().__init__()
        self.conv = nn.Conv3d(3, z_dim, kernel_size=(1, 8, 8), stride=(1, 8, 8))

    def forward(self, video):
        return self.conv(video)


class MatrixGameRunner(BaseRunner):
    def __init__(self, config):
        super().__init__(config)
        self.frame_process = v2.Compose(
            [
                v2.Resize(size=(352, 640), antialias=True),
                v2.ToTensor(),  # expect: TCK910
                v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]),
            ]
        )

    def load_image_encoder(self):
        encoder = TinyVAEEncoder()
        encoder.requires_grad_(False)
        encoder.eval()
        return encoder.to(self.device, self.weight_dtype)

    def _resizecrop(self, image, th, tw):
        w, h = image.size
        if h / w > th / tw:
            new_w, new_h = w, int(w * th / tw)
        else:
            new_w, new_h = int(h * tw / th), h
        left, top = (w - new_w) / 2, (h - new_h) / 2
        return image.crop((left, top, left + new_w, top + new_h))

    def run_input_encoder(self, image_path):
        image = Image.open(image_path).convert("RGB")
        image = self._resizecrop(image, 352, 640)
        frames = self.frame_process(image)[None, :, None, :, :].to(dtype=self.weight_dtype, device=self.device)
        padding = torch.zeros_like(frames).repeat(1, 1, 4 * (self.config["num_output_frames"] - 1), 1, 1)
        cond = self.image_encoder(torch.cat([frames, padding], dim=2))
        return {"cond_concat": cond}


if __name__ == "__main__":
    runner = MatrixGameRunner({"num_output_frames": 15})
    print(runner.run_pipeline("example.png")["cond_concat"].shape)
