import torch

from heterogclstm import HeteroGCLSTM


class RecurrentHeteroGCN(torch.nn.Module):
    def __init__(self, in_channels_dict, metadata, hidden=32, target_type="author"):
        super().__init__()
        self.target_type = target_type
        self.recurrent = HeteroGCLSTM(in_channels_dict, hidden, metadata)
        self.linear = torch.nn.Linear(hidden, 1)

    def forward(self, x_dict, edge_index_dict, h_dict=None, c_dict=None):
        h_dict, c_dict = self.recurrent(x_dict, edge_index_dict, h_dict, c_dict)
        out = self.linear(torch.relu(h_dict[self.target_type]))
        return out, h_dict, c_dict


def train(model, snapshots, epochs=50, lr=0.01):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for _ in range(epochs):
        cost, h_dict, c_dict = 0.0, None, None
        for snapshot in snapshots:
            snapshot = snapshot.to(device)
            y_hat, h_dict, c_dict = model(snapshot.x_dict, snapshot.edge_index_dict, h_dict, c_dict)
            cost = cost + torch.mean((y_hat.squeeze(-1) - snapshot[model.target_type].y) ** 2)
        cost = cost / len(snapshots)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
    return model
