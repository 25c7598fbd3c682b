import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp


def _conv_function_factory(conv):
    # the BatchNorm stays outside the checkpointed region: its running statistics are
    # updated once per forward pass, not again when backward recomputes the region
    def conv_function(normed_features):
        return conv(F.relu(normed_features))  # not in place: the input is recomputed from

    return conv_function


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, efficient=False):
        super().__init__()
        self.add_module("norm1", nn.BatchNorm2d(num_input_features))
        self.add_module("relu1", nn.ReLU(inplace=True))
        self.add_module("conv1", nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, bias=False))
        self.add_module("norm2", nn.BatchNorm2d(bn_size * growth_rate))
        self.add_module("relu2", nn.ReLU(inplace=True))
        self.add_module("conv2", nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, padding=1, bias=False))
        self.drop_rate = drop_rate
        self.efficient = efficient

    def forward(self, *prev_features):
        normed = self.norm1(torch.cat(prev_features, 1))
        conv_function = _conv_function_factory(self.conv1)
        if self.efficient and normed.requires_grad:
            bottleneck_output = cp.checkpoint(conv_function, normed, use_reentrant=False)
        else:
            bottleneck_output = conv_function(normed)
        new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.Module):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, efficient=False):
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate, bn_size, drop_rate, efficient)
            self.add_module("denselayer%d" % (i + 1), layer)

    def forward(self, init_features):
        features = [init_features]
        for _, layer in self.named_children():
            features.append(layer(*features))
        return torch.cat(features, 1)


class DenseNet(nn.Module):
    def __init__(self, growth_rate=12, block_config=(16, 16, 16), num_init_features=24, bn_size=4,
                 drop_rate=0.0, num_classes=10, efficient=True):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, num_init_features, 3, padding=1, bias=False))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module("denseblock%d" % (i + 1), _DenseBlock(
                num_layers, num_features, bn_size, growth_rate, drop_rate, efficient))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module("transition%d" % (i + 1), nn.Sequential(
                    nn.BatchNorm2d(num_features), nn.ReLU(inplace=True),
                    nn.Conv2d(num_features, num_features // 2, 1, bias=False), nn.AvgPool2d(2)))
                num_features //= 2
        self.features.add_module("norm_final", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)

    def forward(self, x):
        out = F.relu(self.features(x))
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.classifier(out)
