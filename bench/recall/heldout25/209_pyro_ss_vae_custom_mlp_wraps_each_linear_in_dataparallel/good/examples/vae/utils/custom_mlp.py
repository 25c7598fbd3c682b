import torch
import torch.nn as nn


class Exp(nn.Module):
    """A module that exponentiates its input."""

    def forward(self, val):
        return torch.exp(val)


class ConcatModule(nn.Module):
    """Concatenates its (tensor) arguments along the last dimension."""

    def __init__(self, allow_broadcast=False):
        super().__init__()
        self.allow_broadcast = allow_broadcast

    def forward(self, *input_args):
        if len(input_args) == 1:
            input_args = input_args[0]
        if torch.is_tensor(input_args):
            return input_args
        if self.allow_broadcast:
            shape = torch.broadcast_shapes(*[s.shape[:-1] for s in input_args]) + (-1,)
            input_args = [s.expand(shape) for s in input_args]
        return torch.cat(input_args, dim=-1)


class ListOutModule(nn.ModuleList):
    """Applies each of its modules to the same input and returns the list of outputs."""

    def forward(self, *args, **kwargs):
        return [mm(*args, **kwargs) for mm in self]


def call_nn_op(op):
    if op in [nn.Softmax, nn.LogSoftmax]:
        return op(dim=1)
    return op()


class MLP(nn.Module):
    def __init__(self, mlp_sizes, activation=nn.ReLU, output_activation=None, allow_broadcast=False, use_cuda=False):
        super().__init__()
        assert len(mlp_sizes) >= 2, "Must have input and output layer sizes defined"
        input_size, hidden_sizes, output_size = mlp_sizes[0], mlp_sizes[1:-1], mlp_sizes[-1]
        last_layer_size = input_size if isinstance(input_size, int) else sum(input_size)

        # everything sent in is concatenated together first
        all_modules = [ConcatModule(allow_broadcast)]
        for layer_size in hidden_sizes:
            cur_linear_layer = nn.Linear(last_layer_size, layer_size)

            # for numerical stability -- initialize the layer properly
            cur_linear_layer.weight.data.normal_(0, 0.001)
            cur_linear_layer.bias.data.normal_(0, 0.001)

            all_modules.append(cur_linear_layer)
            all_modules.append(activation())
            last_layer_size = layer_size

        if isinstance(output_size, int):
            all_modules.append(nn.Linear(last_layer_size, output_size))
            if output_activation is not None:
                all_modules.append(call_nn_op(output_activation))
        else:
            # several outputs from the last hidden layer, e.g. a location and a scale
            out_layers = []
            for out_ix, out_size in enumerate(output_size):
                split_layer = [nn.Linear(last_layer_size, out_size)]
                act_out_fct = output_activation[out_ix] if isinstance(output_activation, (list, tuple)) else output_activation
                if act_out_fct:
                    split_layer.append(call_nn_op(act_out_fct))
                out_layers.append(nn.Sequential(*split_layer))
            all_modules.append(ListOutModule(out_layers))

        self.sequential_mlp = nn.Sequential(*all_modules)

    def forward(self, *args, **kwargs):
        return self.sequential_mlp(*args, **kwargs)
