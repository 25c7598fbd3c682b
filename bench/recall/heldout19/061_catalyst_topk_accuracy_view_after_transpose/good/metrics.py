from typing import Optional, Sequence

import torch


def get_activation_fn(activation: Optional[str] = None):
    if activation is None or activation == "none":
        return lambda x: x
    if activation == "Sigmoid":
        return torch.sigmoid
    if activation == "Softmax":
        return lambda x: torch.softmax(x, dim=1)
    raise NotImplementedError(activation)


def accuracy(
    outputs: torch.Tensor,
    targets: torch.Tensor,
    topk: Sequence[int] = (1,),
    activation: Optional[str] = None,
) -> Sequence[torch.Tensor]:
    activation_fn = get_activation_fn(activation)
    outputs = activation_fn(outputs)

    max_k = max(topk)
    batch_size = targets.size(0)

    if len(outputs.shape) == 1 or outputs.shape[1] == 1:
        pred = outputs.t()
    else:
        _, pred = outputs.topk(max_k, 1, True, True)
        pred = pred.t()
    correct = pred.eq(targets.long().view(1, -1).expand_as(pred))

    output = []
    for k in topk:
        correct_k = correct[:k].contiguous().view(-1).float().sum(0, keepdim=True)
        output.append(correct_k.mul_(1.0 / batch_size))
    return output
