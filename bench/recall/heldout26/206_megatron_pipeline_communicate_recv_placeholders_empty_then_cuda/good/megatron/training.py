import torch
import torch.distributed as dist

from megatron import mpu
from megatron.global_vars import get_args


def _exchange(tensor_send_next, tensor_send_prev, tensor_recv_prev, tensor_recv_next):
    group = mpu.get_pipeline_model_parallel_group()
    ops = []
    if tensor_send_prev is not None:
        ops.append(dist.P2POp(dist.isend, tensor_send_prev, mpu.get_pipeline_model_parallel_prev_rank(), group))
    if tensor_recv_prev is not None:
        ops.append(dist.P2POp(dist.irecv, tensor_recv_prev, mpu.get_pipeline_model_parallel_prev_rank(), group))
    if tensor_send_next is not None:
        ops.append(dist.P2POp(dist.isend, tensor_send_next, mpu.get_pipeline_model_parallel_next_rank(), group))
    if tensor_recv_next is not None:
        ops.append(dist.P2POp(dist.irecv, tensor_recv_next, mpu.get_pipeline_model_parallel_next_rank(), group))
    if ops:
        for req in dist.batch_isend_irecv(ops):
            req.wait()
    torch.cuda.synchronize()


def communicate(tensor_send_next, tensor_send_prev, recv_forward, recv_backward):
    """Exchange activations / gradients with the neighbouring pipeline stages."""
    args = get_args()

    # placeholders the neighbours' tensors are received into
    tensor_recv_prev = None
    tensor_recv_next = None
    tensor_shape = (args.seq_length, args.batch_size, args.hidden_size)
    if recv_forward:
        tensor_recv_prev = torch.empty(tensor_shape, requires_grad=True, device=torch.cuda.current_device(),
                                       dtype=args.params_dtype)
    if recv_backward:
        tensor_recv_next = torch.empty(tensor_shape, requires_grad=True, device=torch.cuda.current_device(),
                                       dtype=args.params_dtype)

    _exchange(tensor_send_next, tensor_send_prev, tensor_recv_prev, tensor_recv_next)
    return tensor_recv_prev, tensor_recv_next


def backward_step(optimizer, input_tensor, output_tensor, output_tensor_grad):
    if input_tensor is not None:
        input_tensor.retain_grad()
    torch.autograd.backward(output_tensor, grad_tensors=output_tensor_grad)
    return input_tensor.grad if input_tensor is not None else None


def forward_step_with_communication(forward_step_func, data_iterator, model, input_tensors, output_tensors,
                                    losses_reduced):
    if not mpu.is_pipeline_first_stage():
        input_tensor, _ = communicate(tensor_send_next=None, tensor_send_prev=None,
                                      recv_forward=True, recv_backward=False)
    else:
        input_tensor = None

    output_tensor = forward_step_func(data_iterator, model, input_tensor)

    if mpu.is_pipeline_last_stage():
        loss, loss_reduced = output_tensor
        output_tensor = loss
        losses_reduced.append(loss_reduced)
    else:
        communicate(tensor_send_next=output_tensor, tensor_send_prev=None,
                    recv_forward=False, recv_backward=False)

    input_tensors.append(input_tensor)
    output_tensors.append(output_tensor)


def backward_step_with_communication(optimizer, input_tensors, output_tensors):
    input_tensor = input_tensors.pop(0)
    output_tensor = output_tensors.pop(0)

    if mpu.is_pipeline_last_stage():
        output_tensor_grad = None
    else:
        _, output_tensor_grad = communicate(tensor_send_next=None, tensor_send_prev=None,
                                            recv_forward=False, recv_backward=True)

    input_tensor_grad = backward_step(optimizer, input_tensor, output_tensor, output_tensor_grad)

    if not mpu.is_pipeline_first_stage():
        communicate(tensor_send_next=None, tensor_send_prev=input_tensor_grad,
                    recv_forward=False, recv_backward=False)


def train_step(forward_step_func, data_iterator, model, optimizer, lr_scheduler):
    """All forwards of the micro-batches, then all backwards (no 1F1B interleaving), then one step."""
    args = get_args()
    optimizer.zero_grad()
    input_tensors, output_tensors, losses_reduced = [], [], []
    for _ in range(args.num_microbatches):
        forward_step_with_communication(forward_step_func, data_iterator, model,
                                        input_tensors, output_tensors, losses_reduced)
    for _ in range(args.num_microbatches):
        backward_step_with_communication(optimizer, input_tensors, output_tensors)
    optimizer.step()
    lr_scheduler.step()
    return losses_reduced
