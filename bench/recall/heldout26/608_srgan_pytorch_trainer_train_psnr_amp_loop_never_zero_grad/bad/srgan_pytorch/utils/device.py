import torch


def select_device(device="", batch_size=None):
    if device.lower() == "cpu" or not torch.cuda.is_available():
        return torch.device("cpu")
    return torch.device("cuda:0" if device == "" else f"cuda:{device}")
