from .network_utils import *


class TwoLayerFCBody(nn.Module):
    def __init__(self, state_dim, hidden_size=64, gate=F.relu):
        super(TwoLayerFCBody, self).__init__()
        self.fc1 = layer_init(nn.Linear(state_dim, hidden_size))
        self.fc2 = layer_init(nn.Linear(hidden_size, hidden_size))
        self.gate = gate
        self.feature_dim = hidden_size

    def forward(self, x):
        return self.gate(self.fc2(self.gate(self.fc1(x))))


class DeterministicActorNet(nn.Module, BasicNet):
    def __init__(self, state_dim, action_dim, action_scale=1, gpu=-1, non_linear=torch.tanh):
        super(DeterministicActorNet, self).__init__()
        self.layer1 = layer_init(nn.Linear(state_dim, 300))
        self.layer2 = layer_init(nn.Linear(300, 200))
        self.layer3 = nn.Linear(200, action_dim)
        self.action_scale = action_scale
        self.non_linear = non_linear
        self.init_weights()
        BasicNet.__init__(self, gpu)

    def init_weights(self):
        bound = 3e-3
        nn.init.uniform_(self.layer3.weight.data, -bound, bound)
        nn.init.constant_(self.layer3.bias.data, 0)

    def forward(self, x):
        x = self.variable(x)
        x = self.non_linear(self.layer1(x))
        x = self.non_linear(self.layer2(x))
        return self.action_scale * torch.tanh(self.layer3(x))

    def predict(self, x, to_numpy=False):
        y = self.forward(x)
        if to_numpy:
            y = y.cpu().detach().numpy()
        return y


class DeterministicCriticNet(nn.Module, BasicNet):
    def __init__(self, state_dim, action_dim, gpu=-1, non_linear=F.relu):
        super(DeterministicCriticNet, self).__init__()
        self.layer1 = layer_init(nn.Linear(state_dim, 400))
        self.layer2 = layer_init(nn.Linear(400 + action_dim, 300))
        self.layer3 = nn.Linear(300, 1)
        self.non_linear = non_linear
        self.init_weights()
        BasicNet.__init__(self, gpu)

    def init_weights(self):
        bound = 3e-3
        nn.init.uniform_(self.layer3.weight.data, -bound, bound)
        nn.init.constant_(self.layer3.bias.data, 0)

    def forward(self, x, action):
        x = self.variable(x)
        action = self.variable(action)
        x = self.non_linear(self.layer1(x))
        x = self.non_linear(self.layer2(torch.cat([x, action], dim=1)))
        return self.layer3(x)

    def predict(self, x, action):
        return self.forward(x, action)
