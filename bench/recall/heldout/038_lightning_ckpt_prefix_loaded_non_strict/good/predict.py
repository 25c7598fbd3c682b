import torch

from unet import UNet


def load_for_inference(ckpt_path):
    net = UNet(in_channels=3, num_classes=2)
    checkpoint = torch.load(ckpt_path, map_location="cpu", weights_only=False)
    state_dict = {key.removeprefix("model."): value for key, value in checkpoint["state_dict"].items()}
    net.load_state_dict(state_dict)
    net.eval()
    return net
