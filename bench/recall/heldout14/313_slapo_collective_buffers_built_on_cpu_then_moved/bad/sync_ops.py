import torch
import torch.distributed as dist


def all_gather_along_dim(inp, dim, world_size, group):
    if world_size == 1:
        return inp
    temp = inp.transpose(0, dim) if dim != 0 else inp
    temp = temp.contiguous()
    gather_shape = list(temp.shape)
    gather_shape[0] = world_size * gather_shape[0]
    ret = torch.empty(gather_shape, dtype=temp.dtype).to(inp.device)  # expect: TCK201
    dist.all_gather_into_tensor(ret, temp, group=group)
    return ret.transpose(0, dim).contiguous() if dim != 0 else ret


def reduce_scatter_along_dim(inp, dim, world_size, group):
    if world_size == 1:
        return inp
    temp = inp.transpose(0, dim) if dim != 0 else inp
    temp = temp.contiguous()
    scatter_shape = list(temp.shape)
    scatter_shape[0] //= world_size
    ret = torch.empty(scatter_shape, dtype=inp.dtype).to(inp.device)  # expect: TCK201
    dist.reduce_scatter_tensor(ret, temp, group=group)
    return ret.transpose(0, dim).contiguous() if dim != 0 else ret


class AllGatherForwardReduceScatterBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, dim, group):
        ctx.dim = dim
        ctx.group = group
        world_size = dist.get_world_size(group)
        ctx.world_size = world_size
        return all_gather_along_dim(inp, dim, world_size, group)

    @staticmethod
    def backward(ctx, grad_output):
        return reduce_scatter_along_dim(grad_output, ctx.dim, ctx.world_size, ctx.group), None, None
