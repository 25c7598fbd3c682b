import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from dilate_loss import DilateLoss

CRITERIA = {"MSE": nn.MSELoss, "L1": nn.L1Loss, "DilateLoss": DilateLoss}


class LSTMForecast(nn.Module):
    def __init__(self, n_features=3, hidden=64, horizon=12):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def train_transformer_style(model, params, device):
    criterion = CRITERIA[params["criterion"]](**params.get("criterion_params", {}))
    optimizer = torch.optim.Adam(model.parameters(), lr=params["lr"])
    x = torch.randn(256, 48, 3)
    y = torch.randn(256, 12)
    loader = DataLoader(TensorDataset(x, y), batch_size=params["batch_size"], shuffle=True)
    for epoch in range(params["epochs"]):
        model.train()
        running = 0.0
        for src, trg in loader:
            src, trg = src.to(device), trg.to(device)
            optimizer.zero_grad()
            loss = criterion(trg, model(src))
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: {running / len(loader):.4f}")


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    config = {"criterion": "DilateLoss", "criterion_params": {"gamma": 0.01, "alpha": 0.5},
              "lr": 1e-3, "batch_size": 32, "epochs": 2}
    train_transformer_style(LSTMForecast().to(dev), config, dev)
