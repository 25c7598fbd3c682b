import torch
import torch.nn.functional as F


def EPE(input_flow, target_flow, sparse=False, mean=True):
    """End-point error: L2 distance between predicted and true flow vectors."""
    epe_map = torch.norm(target_flow - input_flow, 2, 1)
    batch_size = epe_map.size(0)
    if sparse:
        # pixels whose ground-truth flow is exactly zero carry no label
        invalid = (target_flow[:, 0] == 0) & (target_flow[:, 1] == 0)
        epe_map = epe_map[~invalid]
    if mean:
        return epe_map.mean()
    return epe_map.sum() / batch_size


def sparse_max_pool(flow, size):
    pos = (flow > 0).float()
    neg = (flow < 0).float()
    return F.adaptive_max_pool2d(flow * pos, size) - F.adaptive_max_pool2d(-flow * neg, size)


def multiscaleEPE(network_output, target_flow, weights=None, sparse=False):
    """Weighted sum of the EPE of every scale the network predicts."""

    def one_scale(output, target):
        _, _, h, w = output.size()
        if sparse:
            target_scaled = sparse_max_pool(target, (h, w))
        else:
            target_scaled = F.adaptive_avg_pool2d(target, (h, w))
        return EPE(output, target_scaled, sparse, mean=False)

    if not isinstance(network_output, (tuple, list)):
        network_output = [network_output]
    if weights is None:
        weights = [0.005, 0.01, 0.02, 0.08, 0.32]
    assert len(weights) == len(network_output)

    loss = 0
    for output, weight in zip(network_output, weights):
        loss += weight * one_scale(output, target_flow)
    return loss


def realEPE(output, target, sparse=False):
    _, _, h, w = target.size()
    upsampled = F.interpolate(output, size=(h, w), mode="bilinear", align_corners=False)
    return EPE(upsampled, target, sparse, mean=True)
