from torch import nn

from layer_norm_lstm import LayerNormLSTMCell


class MetaOptimizer(nn.Module):
    def __init__(self, model, num_layers, hidden_size):
        super().__init__()
        self.meta_model = model
        self.hidden_size = hidden_size
        self.linear1 = nn.Linear(3, hidden_size)
        self.lstms = nn.ModuleList()
        for i in range(num_layers):
            self.lstms.append(LayerNormLSTMCell(hidden_size, hidden_size))
        self.linear2 = nn.Linear(hidden_size, 1)

    def forward(self, x, states):
        x = self.linear1(x)
        new_states = []
        for lstm, state in zip(self.lstms, states):
            hx, cx = lstm(x, state)
            new_states.append((hx, cx))
            x = hx
        return self.linear2(x).squeeze(), new_states
