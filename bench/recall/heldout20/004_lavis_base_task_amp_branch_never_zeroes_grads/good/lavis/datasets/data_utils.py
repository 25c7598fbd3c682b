import torch


def move_to_cuda(sample):
    if torch.is_tensor(sample):
        return sample.cuda(non_blocking=True)
    if isinstance(sample, dict):
        return {k: move_to_cuda(v) for k, v in sample.items()}
    if isinstance(sample, (list, tuple)):
        return type(sample)(move_to_cuda(v) for v in sample)
    return sample


def prepare_sample(samples, cuda_enabled=True):
    if cuda_enabled:
        samples = move_to_cuda(samples)
    return samples
