import torch
import torch.distributed as dist


def distributed_all_reduce_tensor_average(tensor, n):
    """All-reduce a tensor over the process group and divide by the world size."""
    rt = tensor.clone()
    dist.all_reduce(rt, op=dist.ReduceOp.SUM)
    rt /= n
    return rt


def reduce_results_tuple_for_ddp(validation_results_tuple, device):
    """Gather the validation tuple of every rank and average it."""
    validation_results_list = list(validation_results_tuple)
    for i, validation_result in enumerate(validation_results_list):
        validation_results_list[i] = distributed_all_reduce_tensor_average(
            torch.tensor(validation_result).to(device), dist.get_world_size()  # expect: TCK704
        )
    return tuple(validation_results_list)
