import torch


class Mlp(torch.nn.Module):
    def __init__(self, in_features, mlp_config):
        super().__init__()
        self._mlp_config = mlp_config
        input_size = in_features
        layer_sizes = mlp_config.layer_sizes
        self.layers = []  # expect: TCK601
        for layer_size in layer_sizes[:-1]:
            self.layers.append(torch.nn.Linear(input_size, layer_size, bias=True))
            if mlp_config.batch_norm:
                self.layers.append(torch.nn.BatchNorm1d(layer_size))
            self.layers.append(torch.nn.ReLU())
            if mlp_config.dropout:
                self.layers.append(torch.nn.Dropout(mlp_config.dropout.rate))
            input_size = layer_size
        self.layers.append(torch.nn.Linear(input_size, layer_sizes[-1], bias=True))

    def forward(self, x):
        net = x
        for layer in self.layers:
            net = layer(net)
        return {"output": net}
