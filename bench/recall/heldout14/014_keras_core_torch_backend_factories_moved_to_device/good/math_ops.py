import torch

from core import convert_to_tensor, get_device


def segment_sum(data, segment_ids, num_segments=None):
    data = convert_to_tensor(data)
    segment_ids = convert_to_tensor(segment_ids)
    num_repeats = torch.prod(torch.tensor(data.shape[1:], device=get_device())).long()
    # replicate segment_ids into the shape of data to use scatter_add
    segment_ids = segment_ids.repeat_interleave(num_repeats).view(*data.shape).long()
    num_segments = num_segments or int(segment_ids.max()) + 1
    # segments outside [0, num_segments) go to an extra row that is dropped afterwards
    segment_ids = torch.where(segment_ids < num_segments, segment_ids, num_segments)
    shape = (num_segments + 1,) + tuple(data.shape[1:])
    result = torch.zeros(*shape, device=get_device()).scatter_add(0, segment_ids, data.float())
    return result[:-1].type(data.dtype)
