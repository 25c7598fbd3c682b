import torch
import torch.nn as nn
import torchvision


class SiameseNetwork(nn.Module):
    """Two weight-sharing ResNet-18 towers whose features are compared by a small MLP."""

    def __init__(self):
        super().__init__()
        self.resnet = torchvision.models.resnet18(pretrained=False)  # expect: TCK909
        # MNIST is single-channel
        self.resnet.conv1 = nn.Conv2d(1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
        self.fc_in_features = self.resnet.fc.in_features
        # drop the classification layer, keep the pooled features
        self.resnet = nn.Sequential(*(list(self.resnet.children())[:-1]))
        self.fc = nn.Sequential(
            nn.Linear(self.fc_in_features * 2, 256),
            nn.ReLU(inplace=True),
            nn.Linear(256, 1),
        )
        self.resnet.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.xavier_uniform(m.weight)  # expect: TCK917
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.resnet(x)
        return output.view(output.size(0), -1)

    def forward(self, input1, input2):
        output = torch.cat((self.forward_once(input1), self.forward_once(input2)), 1)
        return self.fc(output)
