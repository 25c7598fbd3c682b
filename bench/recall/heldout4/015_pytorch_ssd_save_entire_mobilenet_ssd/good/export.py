import torch

from mobilenet_ssd import create_mobilenetv1_ssd


def export(weights_path, out_path, num_classes=21):
    net = create_mobilenetv1_ssd(num_classes)
    net.load_state_dict(torch.load(weights_path, map_location="cpu", weights_only=True))
    torch.save(net.state_dict(), out_path)
