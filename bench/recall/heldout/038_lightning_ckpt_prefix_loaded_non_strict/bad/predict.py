import torch

from unet import UNet


def load_for_inference(ckpt_path):
    net = UNet(in_channels=3, num_classes=2)
    checkpoint = torch.load(ckpt_path, map_location="cpu", weights_only=False)
    net.load_state_dict(checkpoint["state_dict"], strict=False)  # expect: TCK403
    net.eval()
    return net
