import torch

from torch_utils import Combiner


class FCStack(torch.nn.Module):
    def __init__(self, input_size, sizes, dropout=0.1):
        super().__init__()
        layers = []
        for size in sizes:
            layers += [torch.nn.Linear(input_size, size), torch.nn.ReLU(), torch.nn.Dropout(dropout)]
            input_size = size
        self.net = torch.nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class ComparatorCombiner(Combiner):
    def __init__(self, input_features, entity_1, entity_2, fc_size=64, dropout=0.1):
        super().__init__(input_features)
        self.entity_1 = entity_1
        self.entity_2 = entity_2
        size_1 = sum(input_features[k] for k in entity_1)
        size_2 = sum(input_features[k] for k in entity_2)
        self.e1_fc = FCStack(size_1, [fc_size, fc_size], dropout)
        self.e2_fc = FCStack(size_2, [fc_size, fc_size], dropout)
        self.last_fc_size = fc_size
        # todo: set initializer and regularization
        self.register_buffer("bilinear_weights", torch.randn([self.last_fc_size, self.last_fc_size], dtype=torch.float32))

    def forward(self, inputs):
        e1 = torch.cat([inputs[k] for k in self.entity_1], dim=1)
        e2 = torch.cat([inputs[k] for k in self.entity_2], dim=1)
        h1 = self.e1_fc(e1)
        h2 = self.e2_fc(e2)
        product = h1 * h2
        diff = h1 - h2
        bilinear = torch.bmm(torch.mm(h1, self.bilinear_weights).unsqueeze(1), h2.unsqueeze(-1)).squeeze(-1)
        return torch.cat([h1, h2, product, diff, bilinear], dim=1)
